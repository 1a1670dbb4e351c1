/**
 * The plan's arithmetic: GCRA against a plain token bucket on any arrivals, the quotas per
 * window and counter, and units given back.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  bucketAt,
  type Demand,
  givenBack,
  judge,
  type UsageState,
} from '../../../../lib/usage/limits.ts';
import { type Counts, rulesOf } from '../../../../lib/usage/plan.ts';
import { windowsOf } from '../../../../lib/usage/windows.ts';

const T0 = Date.UTC(2026, 10, 25, 10);
const ONE: Counts = { requests: 1, translate: 0, tts: 0 };

function demandAt(nowMs: number, plan: Parameters<typeof rulesOf>[0], counts = ONE): Demand {
  return { nowMs, windows: windowsOf(nowMs), counts, rules: rulesOf(plan) };
}

/** A token bucket the plain way, in whole microseconds: refill, then spend one. */
function referenceBucket(rps: number, burst: number) {
  const interval = 1_000_000 / rps;
  let tokensUs = burst * interval;
  let lastUs: number | undefined;
  return (nowMs: number) => {
    const nowUs = nowMs * 1000;
    if (lastUs !== undefined) tokensUs = Math.min(burst * interval, tokensUs + (nowUs - lastUs));
    lastUs = nowUs;
    if (tokensUs < interval) return false;
    tokensUs -= interval;
    return true;
  };
}

describe('judge: the token bucket', () => {
  it('admits what a plain token bucket admits, for any arrivals', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(1, 2, 4, 5, 10, 20, 50),
        fc.integer({ min: 1, max: 30 }),
        fc.array(fc.integer({ min: 0, max: 400 }), { minLength: 1, maxLength: 200 }),
        (rps, burst, gaps) => {
          const plan = { rateRps: rps, burst };
          const reference = referenceBucket(rps, burst);
          let state: UsageState | undefined;
          let now = T0;
          for (const gap of gaps) {
            now += gap;
            const verdict = judge(state, demandAt(now, plan));
            expect(verdict.ok).toBe(reference(now));
            if (verdict.ok) state = verdict.next;
          }
        },
      ),
    );
  });

  it('says when the next token comes', () => {
    const plan = { rateRps: 4, burst: 2 };
    let state: UsageState | undefined;
    for (let i = 0; i < 2; i++) {
      const verdict = judge(state, demandAt(T0, plan));
      if (!verdict.ok) throw new Error('refused');
      state = verdict.next;
    }
    const refused = judge(state, demandAt(T0 + 100, plan));
    expect(refused).toEqual({
      ok: false,
      refusal: { kind: 'rate', limit: 'rateRps', retryAfterMs: 150 },
    });
    const rate = rulesOf(plan).rate!;
    expect(bucketAt(state!.tat, rate, T0 + 100)).toEqual({ available: 0, nextInMs: 150 });
    expect(bucketAt(state!.tat, rate, T0 + 250)).toEqual({ available: 1, nextInMs: 250 });
    expect(bucketAt(state!.tat, rate, T0 + 500)).toEqual({ available: 2, nextInMs: 0 });
  });
});

describe('judge: the quotas', () => {
  it('refuses the month before the day, and waits until the window ends', () => {
    const plan = { dayQuotaRequest: 1, monthQuotaRequest: 1 };
    const first = judge(undefined, demandAt(T0, plan));
    if (!first.ok) throw new Error('refused');
    expect(judge(first.next, demandAt(T0, plan))).toEqual({
      ok: false,
      refusal: {
        kind: 'quota',
        limit: 'monthQuotaRequest',
        retryAfterMs: Date.UTC(2026, 11, 1) - T0,
      },
    });
    expect(judge(first.next, demandAt(T0, { dayQuotaRequest: 1 }))).toMatchObject({
      refusal: { limit: 'dayQuotaRequest', retryAfterMs: 14 * 3_600_000 },
    });
  });

  it('holds a counter only against a request that spends it', () => {
    const plan = { dayQuotaCharacters: { translate: 10 }, monthQuotaCharacters: { tts: 3 } };
    const translate = { requests: 1, translate: 8, tts: 0 };
    const first = judge(undefined, demandAt(T0, plan, translate));
    if (!first.ok) throw new Error('refused');
    expect(first.next.dayCounts).toEqual(translate);
    expect(judge(first.next, demandAt(T0, plan, translate))).toMatchObject({
      refusal: { limit: 'dayQuotaCharacters.translate' },
    });
    expect(judge(first.next, demandAt(T0, plan, { ...translate, translate: 2 })).ok).toBe(true);
    expect(judge(first.next, demandAt(T0, plan)).ok).toBe(true);
    expect(
      judge(first.next, demandAt(T0, plan, { requests: 1, translate: 0, tts: 4 })),
    ).toMatchObject({
      refusal: { limit: 'monthQuotaCharacters.tts' },
    });
  });

  it('counts a new window from nothing, keeping the month across days', () => {
    const plan = { dayQuotaRequest: 1 };
    const first = judge(undefined, demandAt(T0, plan));
    if (!first.ok) throw new Error('refused');
    const tomorrow = T0 + 86_400_000;
    const next = judge(first.next, demandAt(tomorrow, plan));
    expect(next).toMatchObject({
      ok: true,
      next: { day: '2026-11-26', dayCounts: ONE, month: '2026-11', monthCounts: { requests: 2 } },
    });
  });
});

describe('givenBack', () => {
  it('takes units back from the windows they were taken in, and a step of the bucket', () => {
    const state: UsageState = {
      tat: 5_000_000,
      day: '2026-11-25',
      dayCounts: { requests: 3, translate: 10, tts: 0 },
      month: '2026-11',
      monthCounts: { requests: 30, translate: 100, tts: 0 },
    };
    const back = { requests: 1, translate: 10, tts: 0 };
    expect(givenBack(state, back, { day: '2026-11-25', month: '2026-11' }, 250_000)).toEqual({
      tat: 4_750_000,
      day: '2026-11-25',
      dayCounts: { requests: 2, translate: 0, tts: 0 },
      month: '2026-11',
      monthCounts: { requests: 29, translate: 90, tts: 0 },
    });
    // Taken yesterday: today's counters keep theirs.
    expect(givenBack(state, back, { day: '2026-11-24', month: '2026-11' }, 0).dayCounts).toBe(
      state.dayCounts,
    );
  });
});
