import { describe, expect, it } from 'vitest';
import type { PlatformSecret } from '../../../../lib/secrets/schema.ts';
import { NO_PLANS, plansOf, quotaName, rulesOf } from '../../../../lib/usage/plan.ts';

describe('rulesOf', () => {
  it('makes a token bucket of rateRps and burst, the burst defaulting to the rate', () => {
    expect(rulesOf({ rateRps: 4, burst: 10 }).rate).toEqual({
      rps: 4,
      burst: 10,
      intervalUs: 250_000,
      toleranceUs: 9 * 250_000,
    });
    expect(rulesOf({ rateRps: 3 }).rate).toEqual({
      rps: 3,
      burst: 3,
      intervalUs: 333_333,
      toleranceUs: 2 * 333_333,
    });
    expect(rulesOf({ dayQuotaRequest: 1 }).rate).toBeUndefined();
  });

  it('sorts the quotas by window and counter', () => {
    const rules = rulesOf({
      dayQuotaRequest: 10,
      monthQuotaRequest: 200,
      dayQuotaCharacters: { tts: 5 },
      monthQuotaCharacters: { translate: 7, tts: 9 },
    });
    expect(rules.day).toEqual({ requests: 10, tts: 5 });
    expect(rules.month).toEqual({ requests: 200, translate: 7, tts: 9 });
    expect(rulesOf({})).toEqual({ rate: undefined, day: {}, month: {} });
  });

  it('computes a plan once', () => {
    const plan = { rateRps: 1 };
    expect(rulesOf(plan)).toBe(rulesOf(plan));
  });

  it('names each quota as the secret does', () => {
    expect(quotaName('day', 'requests')).toBe('dayQuotaRequest');
    expect(quotaName('month', 'tts')).toBe('monthQuotaCharacters.tts');
  });
});

describe('plansOf', () => {
  it("finds a caller's plan and the account's in a fetched secret", () => {
    const plan = { dayQuotaRequest: 3 };
    const accountPlan = { monthQuotaRequest: 100 };
    const secret: PlatformSecret = {
      callers: [
        { id: 'a', token: 't'.repeat(32), scopes: ['*'], plan },
        { id: 'b', token: 'u'.repeat(32), scopes: ['*'] },
      ],
      accountPlan,
    };
    expect(plansOf(secret, 'a')).toEqual({ plan, accountPlan });
    expect(plansOf(secret, 'b')).toEqual({ plan: undefined, accountPlan });
    expect(plansOf(secret, 'nobody')).toEqual({ plan: undefined, accountPlan });
    expect(plansOf({}, 'a')).toEqual(NO_PLANS);
    expect(NO_PLANS).toEqual({ plan: undefined, accountPlan: undefined });
  });
});
