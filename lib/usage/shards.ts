/**
 * Where a subject's usage is kept: one item, or spread over several so that no item of the
 * usage table takes more than a DynamoDB partition's 1,000 writes a second at the stage's peak.
 *
 * A subject that every request may write, at the stage's whole rate, is spread over SHARDS
 * items: the account (whatever its plan), and a caller whose plan has no rate or a rate above
 * SINGLE_ITEM_MAX_RPS.
 * Each shard holds its share of the plan's request quotas and of its token bucket (shares that
 * add up to the plan exactly, so that the shards together never admit more than the plan); a
 * request takes its unit from one shard, and from another when that one's share is spent
 * (gate.ts). Characters of text stay on the subject's own item (a text cannot be split over
 * shards, and only two routes spend them). Any other subject keeps everything on one item.
 *
 * The layout follows the plan: a plan edited across the threshold (a rate added or removed, or
 * moved past SINGLE_ITEM_MAX_RPS) counts its requests afresh in the other layout for the rest
 * of the window (docs/callers.md).
 */
import { type Counts, NO_COUNTS, type RateRule, type Rules } from './plan.ts';

/** Items a spread subject's requests are kept on: 5,200 requests a second is 650 on each. */
export const SHARDS = 8;
/** A caller held to this rate or less keeps one item: its writes stay far under 1,000 a second. */
export const SINGLE_ITEM_MAX_RPS = 250;

/** The items of one subject, and the rules each holds. */
export interface Layout {
  /** The subject's own item: everything, or (spread) the character quotas only. */
  readonly key: string;
  /** The rules of the subject's own item. */
  readonly rules: Rules;
  /** The shards of a spread subject, in order; empty when it keeps one item. */
  readonly shards: readonly Shard[];
}

interface Shard {
  readonly key: string;
  /** This shard's share of the plan's rate and request quotas. */
  readonly rules: Rules;
}

/** Whether a subject with these rules is spread over shards. */
export function isSpread(rules: Rules): boolean {
  return rules.rate === undefined || rules.rate.rps > SINGLE_ITEM_MAX_RPS;
}

/** The i-th of n shares of a whole amount: they differ by one at most, and add up to it. */
export function shareOf(total: number, index: number, count: number): number {
  return Math.floor(total / count) + (index < total % count ? 1 : 0);
}

/**
 * A shard's part of a bucket: its share of the burst, and of the rate in proportion to it, so
 * that the shards together hold the bucket's burst and never exceed its rate (each interval is
 * rounded up). A shard with no share of the burst admits nothing.
 */
function shardRate(rate: RateRule, index: number): RateRule | undefined {
  const burst = shareOf(rate.burst, index, SHARDS);
  if (burst === 0) return undefined;
  const rps = (rate.rps * burst) / rate.burst;
  const intervalUs = Math.ceil(1_000_000 / rps);
  return { rps, burst, intervalUs, toleranceUs: (burst - 1) * intervalUs };
}

function requestsOnly(quotas: Partial<Counts>, index: number, count: number): Partial<Counts> {
  return quotas.requests === undefined ? {} : { requests: shareOf(quotas.requests, index, count) };
}

function charactersOnly(quotas: Partial<Counts>): Partial<Counts> {
  const { requests: _requests, ...characters } = quotas;
  return characters;
}

/**
 * The layout of a subject's usage: its key (`caller#<id>`, `account`) and its plan's rules. The
 * account is always spread: every request of every caller may write it.
 */
export function layoutOf(key: string, rules: Rules, spread = isSpread(rules)): Layout {
  return spread ? spreadLayout(key, rules) : { key, rules, shards: [] };
}

/** The key of a spread subject's i-th shard. */
export const shardKey = (key: string, index: number) => `${key}#${index}`;

function spreadLayout(key: string, rules: Rules): Layout {
  // A shard with no share of the burst could never admit: it is left out, and the quotas are
  // shared among the others.
  const rates = Array.from({ length: SHARDS }, (_, index) =>
    rules.rate ? shardRate(rules.rate, index) : undefined,
  );
  const kept = rates.flatMap((rate, index) => (rules.rate && !rate ? [] : [{ rate, index }]));
  const shards = kept.map(({ rate, index }, position) => ({
    key: shardKey(key, index),
    rules: {
      rate,
      day: requestsOnly(rules.day, position, kept.length),
      month: requestsOnly(rules.month, position, kept.length),
    },
  }));
  const own: Rules = {
    rate: undefined,
    day: charactersOnly(rules.day),
    month: charactersOnly(rules.month),
  };
  return { key, rules: own, shards };
}

/** What a request spends of a spread subject's shard (its requests) and own item (its text). */
export function splitCounts(counts: Counts): { requests: Counts; characters: Counts } {
  return {
    requests: { ...NO_COUNTS, requests: counts.requests },
    characters: { ...counts, requests: 0 },
  };
}

/**
 * Every key a subject's usage may be kept under, in either layout, for a report: its own item
 * and every shard's (a plan edited across the threshold left counts in the other layout).
 */
export function keysOf(key: string): string[] {
  return [key, ...Array.from({ length: SHARDS }, (_, index) => shardKey(key, index))];
}
