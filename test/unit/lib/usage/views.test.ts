/**
 * A subject's usage as the RateLimit fields read it, with no call of its own: its one item, or a
 * spread subject's shard standing for all of them, its text from its own item.
 */
import { describe, expect, it } from 'vitest';
import { EMPTY_STATE, type UsageState } from '../../../../lib/usage/limits.ts';
import { rulesOf } from '../../../../lib/usage/plan.ts';
import { rateLimitFields } from '../../../../lib/usage/rate-limit-headers.ts';
import { memoryUsageStore } from '../../../../lib/usage/store.ts';
import { subjectsOf } from '../../../../lib/usage/taking.ts';
import { monthShareUsed, planView, subjectState } from '../../../../lib/usage/views.ts';
import { windowsOf } from '../../../../lib/usage/windows.ts';

const T0 = Date.UTC(2026, 10, 25, 10);
const at = { nowMs: T0, windows: windowsOf(T0) };
const used = (requests: number, translate = 0): UsageState => ({
  ...EMPTY_STATE,
  day: '2026-11-25',
  dayCounts: { requests, translate, tts: 0 },
  month: '2026-11',
  monthCounts: { requests, translate, tts: 0 },
});
const ONE = { requests: 1, translate: 0, tts: 0 };

describe('views', () => {
  it("reads a one-item subject's state as its take saw it, else as the container saw it", () => {
    const [subject] = subjectsOf('a', {
      plan: { rateRps: 5, dayQuotaRequest: 10 },
      accountPlan: undefined,
    });
    const store = memoryUsageStore();
    expect(subjectState(subject!, undefined, store, at)).toBeUndefined();
    const seen = new Map([['caller#a', used(3)]]);
    expect(subjectState(subject!, seen, store, at)?.dayCounts.requests).toBe(3);
  });

  it('estimates a spread subject from one shard times the shards, its text from its own item', () => {
    const plans = {
      plan: { dayQuotaRequest: 800, dayQuotaCharacters: { translate: 100 } },
      accountPlan: undefined,
    };
    const [subject] = subjectsOf('a', plans);
    const seen = new Map([
      ['caller#a#3', used(10)],
      ['caller#a', used(0, 40)],
    ]);
    const state = subjectState(subject!, seen, memoryUsageStore(), at);
    expect(state?.dayCounts).toEqual({ requests: 80, translate: 40, tts: 0 });
    const fields = rateLimitFields([planView(subject!, state, { ...ONE, translate: 5 }, at)]);
    expect(fields.RateLimit).toBe(
      '"caller-day";r=720;t=50400, "caller-day-translate";r=60;t=50400',
    );
  });

  it("tells the account's largest share of its monthly quotas, in percent", () => {
    const rules = rulesOf({ monthQuotaRequest: 200, monthQuotaCharacters: { translate: 100 } });
    expect(monthShareUsed(rules, used(50, 30), at)).toBe(30);
    expect(monthShareUsed(rules, undefined, at)).toBe(0);
    expect(monthShareUsed(rulesOf({ dayQuotaRequest: 5 }), used(5), at)).toBeUndefined();
  });
});
