/**
 * Where usage is counted: records of a subject's usage (a caller's, or the account's: one, or
 * one per shard, shards.ts), each holding a token bucket and day and month counters. Every implementation admits exactly what
 * `judge` (limits.ts) admits, atomically per record: the DynamoDB store (dynamo-usage-store.ts)
 * with one conditional write, the memory store below for unit tests and local runs without a
 * table.
 */
import {
  type Demand,
  EMPTY_STATE,
  givenBack,
  judge,
  type Refusal,
  type UsageState,
} from './limits.ts';
import type { Counts } from './plan.ts';

export type TakeResult =
  | { readonly taken: true; readonly state: UsageState }
  /** Refused: the state that refused it (undefined when known only from the request alone). */
  | { readonly taken: false; readonly state: UsageState | undefined; readonly refusal: Refusal };

/** Units to take back from a record: the windows they were taken in, and the bucket's steps. */
export interface GiveBack {
  readonly counts: Counts;
  readonly day: string;
  readonly month: string;
  /** The bucket's interval times the tokens taken, or 0 when the record holds no bucket. */
  readonly intervalUs: number;
}

export interface UsageStore {
  /** Takes the demand from the subject's record if it fits; else says what refused it. */
  take(key: string, demand: Demand): Promise<TakeResult>;
  /** Takes a request's units back (its call could not have reached the platform). */
  giveBack(key: string, back: GiveBack): Promise<void>;
  /** The record as it is now (a consistent read); undefined when there is none. */
  read(key: string): Promise<UsageState | undefined>;
  /** The record as this container last saw it (no call); undefined when it has not. */
  peek(key: string): UsageState | undefined;
}

/**
 * Usage in this process's memory: unit tests, and local runs without USAGE_TABLE. It does not
 * reach other processes (serverless offline runs each function in a worker of its own).
 */
export function memoryUsageStore(): UsageStore {
  const records = new Map<string, UsageState>();
  return {
    async take(key, demand) {
      const state = records.get(key);
      const verdict = judge(state, demand);
      if (!verdict.ok) return { taken: false, state, refusal: verdict.refusal };
      records.set(key, verdict.next);
      return { taken: true, state: verdict.next };
    },
    async giveBack(key, back) {
      const state = records.get(key) ?? EMPTY_STATE;
      records.set(key, givenBack(state, back.counts, back, back.intervalUs));
    },
    read: async (key) => records.get(key),
    peek: (key) => records.get(key),
  };
}
