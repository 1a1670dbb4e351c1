/**
 * The arithmetic of a plan, pure: whether a request fits one subject's usage (a caller's, or the
 * account's), and its usage after it. Every store judges with it (the memory store directly;
 * the DynamoDB store to read a refused write's item), and the RateLimit headers read it.
 */
import {
  COUNTERS,
  type Counts,
  type LimitName,
  NO_COUNTS,
  quotaName,
  type RateRule,
  type Rules,
  type WindowName,
} from './plan.ts';
import type { Windows } from './windows.ts';

/** One subject's usage: its token bucket and its current windows' counters. */
export interface UsageState {
  /** The bucket's theoretical arrival time, µs since the epoch; 0 when it never ran. */
  readonly tat: number;
  /** The day its day counters count (`2026-11-25`); '' when none. */
  readonly day: string;
  readonly dayCounts: Counts;
  readonly month: string;
  readonly monthCounts: Counts;
}

export const EMPTY_STATE: UsageState = {
  tat: 0,
  day: '',
  dayCounts: NO_COUNTS,
  month: '',
  monthCounts: NO_COUNTS,
};

/** What one request asks of one subject. */
export interface Demand {
  readonly nowMs: number;
  readonly windows: Windows;
  readonly counts: Counts;
  /** The subject's plan; a plan without rules (an unheld record) admits everything. */
  readonly rules: Rules;
}

export interface Refusal {
  readonly kind: 'rate' | 'quota';
  readonly limit: LimitName;
  /** How long until the request could fit: the next token, or the window's end. */
  readonly retryAfterMs: number;
}

export type Verdict =
  | { readonly ok: true; readonly next: UsageState }
  | { readonly ok: false; readonly refusal: Refusal };

/** A window's counters as of `windows`: a past window's counters count nothing. */
export function countsIn(state: UsageState, window: WindowName, windows: Windows): Counts {
  return window === 'day'
    ? state.day === windows.day
      ? state.dayCounts
      : NO_COUNTS
    : state.month === windows.month
      ? state.monthCounts
      : NO_COUNTS;
}

function add(a: Counts, b: Counts): Counts {
  return {
    requests: a.requests + b.requests,
    translate: a.translate + b.translate,
    tts: a.tts + b.tts,
  };
}

/**
 * Whether the demand fits the state, and the state after it. Quotas are judged before the rate
 * (month, then day), so that a request over a quota is told to wait for the window, not for a
 * token. A counter the request does not spend (a maps call's characters) holds nothing back.
 */
export function judge(state: UsageState | undefined, demand: Demand): Verdict {
  const current = state ?? EMPTY_STATE;
  const { windows, counts, rules } = demand;
  const month = countsIn(current, 'month', windows);
  const day = countsIn(current, 'day', windows);
  for (const [window, used, limits, endsAt] of [
    ['month', month, rules.month, windows.monthEndsAt],
    ['day', day, rules.day, windows.dayEndsAt],
  ] as const) {
    for (const counter of COUNTERS) {
      const limit = limits[counter];
      if (limit === undefined || counts[counter] === 0) continue;
      if (used[counter] + counts[counter] > limit) {
        return {
          ok: false,
          refusal: {
            kind: 'quota',
            limit: quotaName(window, counter),
            retryAfterMs: endsAt - demand.nowMs,
          },
        };
      }
    }
  }
  let tat = current.tat;
  if (rules.rate) {
    // A block of n requests takes n tokens at once: as n requests arriving together would.
    const tokens = Math.max(1, counts.requests);
    const nowUs = demand.nowMs * 1000;
    const base = Math.max(current.tat, nowUs);
    const over = base + (tokens - 1) * rules.rate.intervalUs - nowUs - rules.rate.toleranceUs;
    if (over > 0) {
      return { ok: false, refusal: { kind: 'rate', limit: 'rateRps', retryAfterMs: over / 1000 } };
    }
    tat = base + tokens * rules.rate.intervalUs;
  }
  return {
    ok: true,
    next: {
      tat,
      day: windows.day,
      dayCounts: add(day, counts),
      month: windows.month,
      monthCounts: add(month, counts),
    },
  };
}

/**
 * How many units of `perUnit` (0 to `most`) the state's quotas leave room for: what a block of
 * bulk work may take of them (the bucket decides how soon, judge).
 */
export function unitsThatFit(state: UsageState | undefined, demand: Demand, most: number): number {
  const current = state ?? EMPTY_STATE;
  const { windows, counts, rules } = demand;
  let fit = most;
  for (const window of ['month', 'day'] as const) {
    const used = countsIn(current, window, windows);
    for (const counter of COUNTERS) {
      const limit = rules[window][counter];
      if (limit === undefined || counts[counter] === 0) continue;
      fit = Math.min(fit, Math.floor((limit - used[counter]) / counts[counter]));
    }
  }
  return Math.max(0, fit);
}

/** What a bucket holds at an instant: whole requests it admits now, and when the next frees. */
export function bucketAt(
  tat: number,
  rate: RateRule,
  nowMs: number,
): { readonly available: number; readonly nextInMs: number } {
  const nowUs = nowMs * 1000;
  const base = Math.max(tat, nowUs);
  const available = Math.min(
    rate.burst,
    Math.max(0, Math.floor((nowUs + rate.toleranceUs - base) / rate.intervalUs) + 1),
  );
  if (available >= rate.burst) return { available, nextInMs: 0 };
  const nextUs = base + available * rate.intervalUs - rate.toleranceUs;
  return { available, nextInMs: Math.max(0, (nextUs - nowUs) / 1000) };
}

/**
 * The state with units taken back (calls that never reached the platform): the counts from the
 * windows they were taken in, and `intervalUs` (every token's interval together) from the bucket.
 */
export function givenBack(
  state: UsageState,
  counts: Counts,
  windows: Pick<Windows, 'day' | 'month'>,
  intervalUs: number,
): UsageState {
  const less = (a: Counts): Counts => ({
    requests: a.requests - counts.requests,
    translate: a.translate - counts.translate,
    tts: a.tts - counts.tts,
  });
  return {
    tat: state.tat - intervalUs,
    day: state.day,
    dayCounts: state.day === windows.day ? less(state.dayCounts) : state.dayCounts,
    month: state.month,
    monthCounts: state.month === windows.month ? less(state.monthCounts) : state.monthCounts,
  };
}
