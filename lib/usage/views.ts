/**
 * A subject's usage as the RateLimit fields and the account's metric read it: its one item, or,
 * for a spread subject (shards.ts), its shards and its own item together, as one state of the
 * whole plan. A response reads only the records its take saw and those the container saw before
 * (no call for it): a shard the container has not seen yet is taken to be as used as those it
 * has, so the spread subject's `r` is an estimate, exact within what the container saw.
 */
import type { PlanHolder } from '../core/errors.js';
import { bucketAt, countsIn, type UsageState } from './limits.js';
import type { Counts, Rules } from './plan.js';
import type { PlanView } from './rate-limit-headers.js';
import type { Shard } from './shards.js';
import type { UsageStore } from './store.js';
import type { Instant, Seen, Subject } from './taking.js';

/** A record's state: as the take saw it, else as the container last saw it. */
type Lookup = (key: string) => UsageState | undefined;

/** The requests a spread subject's shards have counted in a window, estimated for unseen ones. */
function shardRequests(
  shards: readonly Shard[],
  lookup: Lookup,
  window: 'day' | 'month',
  at: Instant,
): number {
  let used = 0;
  let known = 0;
  let knownShare = 0;
  let share = 0;
  for (const shard of shards) {
    const quota = shard.rules[window].requests ?? 1;
    share += quota;
    const state = lookup(shard.key);
    if (!state) continue;
    known += 1;
    knownShare += quota;
    used += countsIn(state, window, at.windows).requests;
  }
  if (known === 0) return 0;
  return Math.round(used * (share / knownShare));
}

/** A bucket's theoretical arrival time that leaves `available` tokens now, the next one in `nextUs`. */
function tatLeaving(available: number, nextUs: number, rules: Rules, nowUs: number): number {
  const rate = rules.rate;
  if (!rate) return 0;
  if (available >= 1) return nowUs + rate.toleranceUs - (available - 1) * rate.intervalUs;
  return nowUs + rate.toleranceUs + nextUs;
}

/** The shards' buckets as one: their tokens added up, estimated for unseen shards. */
function shardTat(shards: readonly Shard[], lookup: Lookup, rules: Rules, at: Instant): number {
  let available = 0;
  let burstSeen = 0;
  let burst = 0;
  let nextMs = Number.POSITIVE_INFINITY;
  for (const { key, rules: own } of shards) {
    if (!own.rate) continue;
    burst += own.rate.burst;
    const state = lookup(key);
    if (!state) continue;
    burstSeen += own.rate.burst;
    const bucket = bucketAt(state.tat, own.rate, at.nowMs);
    available += bucket.available;
    if (bucket.available === 0) nextMs = Math.min(nextMs, bucket.nextInMs);
  }
  const nowUs = at.nowMs * 1000;
  if (burstSeen === 0) return 0;
  const estimate = Math.floor(available * (burst / burstSeen));
  return tatLeaving(estimate, Number.isFinite(nextMs) ? nextMs * 1000 : 0, rules, nowUs);
}

/** A spread subject's records as one state of its whole plan; undefined when none was seen. */
function spreadState(subject: Subject, lookup: Lookup, at: Instant): UsageState | undefined {
  const { layout, rules } = subject;
  const own = lookup(layout.key);
  if (!own && !layout.shards.some((shard) => lookup(shard.key))) return undefined;
  const characters = (window: 'day' | 'month'): Counts =>
    own ? countsIn(own, window, at.windows) : { requests: 0, translate: 0, tts: 0 };
  const day = characters('day');
  const month = characters('month');
  return {
    tat: shardTat(layout.shards, lookup, rules, at),
    day: at.windows.day,
    dayCounts: { ...day, requests: day.requests + shardRequests(layout.shards, lookup, 'day', at) },
    month: at.windows.month,
    monthCounts: {
      ...month,
      requests: month.requests + shardRequests(layout.shards, lookup, 'month', at),
    },
  };
}

/** The subject's state for its plan view: what the take saw, and what the container had seen. */
export function subjectState(
  subject: Subject,
  seen: Seen | undefined,
  store: UsageStore,
  at: Instant,
): UsageState | undefined {
  const lookup: Lookup = (key) => seen?.get(key) ?? store.peek(key);
  if (subject.layout.shards.length === 0) return lookup(subject.layout.key);
  return spreadState(subject, lookup, at);
}

/** A plan's part of the RateLimit fields. */
export function planView(
  holder: PlanHolder,
  rules: Rules,
  state: UsageState | undefined,
  counts: Counts,
  at: Instant,
): PlanView {
  return { holder, rules, state, counts, nowMs: at.nowMs, windows: at.windows };
}

/** The largest share of a plan's monthly quotas used, in percent; none without any. */
export function monthShareUsed(
  rules: Rules,
  state: UsageState | undefined,
  at: Instant,
): number | undefined {
  let largest: number | undefined;
  const used = state ? countsIn(state, 'month', at.windows) : undefined;
  for (const counter of ['requests', 'translate', 'tts'] as const) {
    const quota = rules.month[counter];
    if (quota === undefined) continue;
    largest = Math.max(largest ?? 0, Math.round((100 * (used?.[counter] ?? 0)) / quota));
  }
  return largest;
}
