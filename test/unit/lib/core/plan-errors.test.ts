/** What the usage plans refuse: which plan and limit, and the RateLimit fields beside Retry-After. */
import { describe, expect, it } from 'vitest';
import {
  QuotaExceededError,
  RateLimitedError,
  UsageStoreUnavailableError,
} from '../../../../lib/core/plan-errors.ts';

describe("a plan's refusal", () => {
  it('names the plan and the limit a refusal came from, never a caller', () => {
    const quota = new QuotaExceededError('account', 'monthQuotaCharacters.translate', 60);
    expect([quota.plan, quota.limit]).toEqual(['account', 'monthQuotaCharacters.translate']);
    expect(quota.details).toBe(
      "Over the account plan's monthQuotaCharacters.translate; it resets with the window (Retry-After).",
    );
    expect(new RateLimitedError('caller', 1).details).toBe(
      "Over the caller plan's rateRps; retry after the Retry-After seconds.",
    );
  });

  it('is 1 when the usage counters are down', () => {
    expect(new UsageStoreUnavailableError().headers).toEqual({ 'Retry-After': '1' });
  });

  it("comes with a plan's RateLimit fields, and is the refusal's own whatever they say", () => {
    const fields = {
      'RateLimit-Policy': '"caller-rate";q=5;w=1',
      RateLimit: '"caller-rate";r=0;t=1',
      'Retry-After': '99',
    };
    expect(new RateLimitedError('caller', 0.5, fields).headers).toEqual({
      ...fields,
      'Retry-After': '1',
    });
    expect(new QuotaExceededError('account', 'monthQuotaRequest', 3600, fields).headers).toEqual({
      ...fields,
      'Retry-After': '3600',
    });
  });
});
