/**
 * Taking units from a subject's records, and giving them back: from its one item, or, for a
 * spread subject (shards.ts), its requests from one shard (the next one when that one's share is
 * spent, so that the shards together admit exactly the plan) and its characters from its own
 * item. A take is exact (a request: its units, or nothing) or up to a number (a block of bulk
 * work: as many as fit now, at least one).
 */
import type { PlanHolder } from '../core/errors.ts';
import type { Logger } from '../core/log.ts';
import { describeError } from '../core/log.ts';
import type { PlanEntry } from '../secrets/callers-schema.ts';
import { type Demand, type Refusal, type UsageState, unitsThatFit } from './limits.ts';
import { type Counts, type Plans, type Rules, rulesOf } from './plan.ts';
import { type Layout, layoutOf, splitCounts } from './shards.ts';
import type { GiveBack, UsageStore } from './store.ts';
import type { Windows } from './windows.ts';

/** A plan that holds a request: the caller's or the account's. */
export interface Subject {
  readonly holder: PlanHolder;
  readonly rules: Rules;
  readonly layout: Layout;
}

/** Whether a subject's plan holds any quota (what memory cannot hold while the store fails). */
export const hasQuota = ({ rules }: Subject) =>
  Object.keys(rules.day).length + Object.keys(rules.month).length > 0;

/** The record of a caller's usage, and of the account's. */
export const callerKey = (callerId: string) => `caller#${callerId}`;
export const ACCOUNT_KEY = 'account';

/** The plans a caller's request is held to, the caller's first. */
export function subjectsOf(callerId: string, plans: Plans): Subject[] {
  const subjects: Subject[] = [];
  const add = (holder: PlanHolder, key: string, plan: PlanEntry | undefined) => {
    if (!plan) return;
    const rules = rulesOf(plan);
    const layout = holder === 'account' ? layoutOf(key, rules, true) : layoutOf(key, rules);
    subjects.push({ holder, rules, layout });
  };
  add('caller', callerKey(callerId), plans.plan);
  add('account', ACCOUNT_KEY, plans.accountPlan);
  return subjects;
}

/** When a take happens, and its windows. */
export interface Instant {
  readonly nowMs: number;
  readonly windows: Windows;
}

/** What a take took from one record, as it is given back. */
export interface Held {
  readonly key: string;
  readonly back: GiveBack;
}

/** A subject's take: the units taken and where, or what refused them; the records it saw. */
export type SubjectTake =
  | { readonly ok: true; readonly units: number; readonly held: Held[]; readonly seen: Seen }
  | { readonly ok: false; readonly refusal: Refusal; readonly seen: Seen };

/** The records a take saw, by key: what the RateLimit fields are read from. */
export type Seen = Map<string, UsageState>;

interface RecordTake {
  readonly store: UsageStore;
  readonly key: string;
  readonly rules: Rules;
  /** What one unit spends. */
  readonly perUnit: Counts;
  /** The most units to take; `exact`: those or nothing. */
  readonly most: number;
  readonly exact: boolean;
  readonly at: Instant;
  readonly seen: Seen;
}

const times = (counts: Counts, n: number): Counts => ({
  requests: counts.requests * n,
  translate: counts.translate * n,
  tts: counts.tts * n,
});

/**
 * Units from one record: `most` (a block: no more than the bucket's burst), or, when a quota
 * leaves room for fewer, those. A refusal by the bucket says when the block's tokens are there
 * (judge), for the block to wait for.
 */
async function takeFromRecord(take: RecordTake): Promise<SubjectTake> {
  const { store, key, rules, perUnit, at, seen } = take;
  const perUnitDemand: Demand = { ...at, counts: perUnit, rules };
  let units = Math.min(take.most, rules.rate?.burst ?? take.most);
  for (;;) {
    const counts = times(perUnit, units);
    const result = await store.take(key, { ...at, counts, rules });
    if (result.state) seen.set(key, result.state);
    if (result.taken) {
      const back = { counts, ...at.windows, intervalUs: (rules.rate?.intervalUs ?? 0) * units };
      return { ok: true, units, held: [{ key, back }], seen };
    }
    const fewer =
      take.exact || result.refusal.kind === 'rate'
        ? 0
        : unitsThatFit(result.state, perUnitDemand, units - 1);
    if (fewer === 0) return { ok: false, refusal: result.refusal, seen };
    units = fewer;
  }
}

/** Of the shards' refusals, the one to answer: the soonest token, else a quota's. */
const firstToFree = (a: Refusal, b: Refusal) =>
  b.kind === 'rate' && (a.kind !== 'rate' || b.retryAfterMs < a.retryAfterMs) ? b : a;

interface SubjectTakeOptions {
  readonly store: UsageStore;
  readonly subject: Subject;
  readonly perUnit: Counts;
  readonly most: number;
  readonly exact: boolean;
  readonly at: Instant;
  /** Where among a spread subject's shards to start (0 to 1). */
  readonly random: () => number;
  readonly log: Logger;
  /** The store failed: the container's memory, where the subject's rate is held meanwhile. */
  readonly down?: UsageStore;
}

/** Units from a subject: its one item, or a shard and (for text) its own item. */
export async function takeFromSubject(options: SubjectTakeOptions): Promise<SubjectTake> {
  if (options.down) return fromMemory(options);
  const { store, subject, perUnit, most, exact, at } = options;
  const { layout } = subject;
  const seen: Seen = new Map();
  const record = { store, perUnit, most, exact, at, seen };
  if (layout.shards.length === 0) {
    return takeFromRecord({ ...record, key: layout.key, rules: layout.rules });
  }
  const parts = splitCounts(perUnit);
  const shards = layout.shards;
  const start = Math.floor(options.random() * shards.length);
  const refusals: Refusal[] = [];
  let taken: SubjectTake | undefined;
  for (let step = 0; step < shards.length && !taken?.ok; step++) {
    const shard = shards[(start + step) % shards.length]!;
    taken = await takeFromRecord({ ...record, perUnit: parts.requests, ...shard });
    if (!taken.ok) refusals.push(taken.refusal);
  }
  if (!taken?.ok) return { ok: false, refusal: refusals.reduce(firstToFree), seen };
  if (parts.characters.translate + parts.characters.tts === 0) return taken;
  // A store that fails here leaves the shard's unit counted: a plan overcounts, never overspends.
  const text = await takeFromRecord({
    ...record,
    perUnit: parts.characters,
    most: taken.units,
    exact: true,
    key: layout.key,
    rules: layout.rules,
  });
  if (text.ok) return { ...taken, held: [...taken.held, ...text.held] };
  await giveBackAll(store, taken.held, options.log);
  return text;
}

/**
 * A subject judged while the store fails: its whole plan's rate, from the container's memory
 * (counted nowhere: what memory cannot hold is a quota, which the failure policy decides).
 */
async function fromMemory(options: SubjectTakeOptions): Promise<SubjectTake> {
  const { subject, perUnit } = options;
  const take = await takeFromRecord({
    ...options,
    store: options.down!,
    key: subject.layout.key,
    rules: { rate: subject.rules.rate, day: {}, month: {} },
    perUnit: { ...perUnit, translate: 0, tts: 0 },
    seen: new Map(),
  });
  // Nothing of it is in the store: nothing to give back there, nothing it saw to tell.
  return take.ok ? { ...take, held: [], seen: new Map() } : { ...take, seen: new Map() };
}

/**
 * Takes the units back from every record they were taken from. A store that cannot answer
 * leaves them counted, with a warning: a plan overcounts, never overspends.
 */
export async function giveBackAll(
  store: UsageStore,
  held: readonly Held[],
  log: Logger,
): Promise<void> {
  await Promise.all(
    held.map(async ({ key, back }) => {
      try {
        await store.giveBack(key, back);
      } catch (error) {
        log.warn('usage not given back: store unreachable', {
          ...describeError(error),
        });
      }
    }),
  );
}

/** Some of what was taken, as it is given back: `units` of the units each record took. */
export function heldPart(held: readonly Held[], units: number, of: number): Held[] {
  return held.map(({ key, back }) => ({
    key,
    back: {
      ...back,
      counts: times({ requests: back.counts.requests / of, translate: 0, tts: 0 }, units),
      intervalUs: (back.intervalUs / of) * units,
    },
  }));
}
