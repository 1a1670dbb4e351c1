/**
 * A subject's usage as the RateLimit fields and the account's metric read it, with no call of
 * its own: its one item, or, for a spread subject (shards.ts), the shard its take saw standing
 * for all of them (a request starts at a random shard and moves on only when one is spent, so
 * the shards fill evenly), with its characters from its own item. So a spread subject's `r` is
 * an estimate: its shard's, times the shards.
 */
import { countsIn, type UsageState } from './limits.ts';
import { type Counts, NO_COUNTS } from './plan.ts';
import type { PlanView } from './rate-limit-headers.ts';
import type { UsageStore } from './store.ts';
import type { Instant, Seen, Subject } from './taking.ts';

/** The spread subject's usage, as its shard's times the shards (characters its own item's). */
function scaled(subject: Subject, shard: UsageState, own: UsageState | undefined, at: Instant) {
  const n = subject.layout.shards.length;
  const window = (name: 'day' | 'month'): Counts => ({
    ...(own ? countsIn(own, name, at.windows) : NO_COUNTS),
    requests: countsIn(shard, name, at.windows).requests * n,
  });
  return {
    // The shard's bucket runs n times slower with 1/n of the burst: as far ahead of now, it
    // leaves about as many of the plan's tokens as n times its own.
    tat: shard.tat,
    day: at.windows.day,
    dayCounts: window('day'),
    month: at.windows.month,
    monthCounts: window('month'),
  };
}

/** The subject's state for its plan view: what its take saw, or what the container had seen. */
export function subjectState(
  subject: Subject,
  seen: Seen | undefined,
  store: UsageStore,
  at: Instant,
): UsageState | undefined {
  const lookup = (key: string) => seen?.get(key) ?? store.peek(key);
  const { layout } = subject;
  if (layout.shards.length === 0) return lookup(layout.key);
  const shard =
    layout.shards.find((each) => seen?.has(each.key)) ??
    layout.shards.find((each) => store.peek(each.key));
  const state = shard && lookup(shard.key);
  return state ? scaled(subject, state, lookup(layout.key), at) : lookup(layout.key);
}

/** A plan's part of the RateLimit fields. */
export function planView(
  subject: Subject,
  state: UsageState | undefined,
  counts: Counts,
  at: Instant,
): PlanView {
  const { holder, rules } = subject;
  return { holder, rules, state, counts, nowMs: at.nowMs, windows: at.windows };
}

/** The largest share of a plan's monthly quotas used, in percent; none without any. */
export function monthShareUsed(
  rules: Subject['rules'],
  state: UsageState | undefined,
  at: Instant,
): number | undefined {
  let largest: number | undefined;
  const used = state && countsIn(state, 'month', at.windows);
  for (const counter of ['requests', 'translate', 'tts'] as const) {
    const quota = rules.month[counter];
    if (quota !== undefined) {
      largest = Math.max(largest ?? 0, Math.round((100 * (used?.[counter] ?? 0)) / quota));
    }
  }
  return largest;
}
