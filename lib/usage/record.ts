/**
 * A request no plan holds, counted in the account's usage: a webhook delivery that reached its
 * action (its sender is not a caller). Apart from the gate, so that only the consumer carries it.
 */
import { describeError, type Logger } from '../core/log.ts';
import type { UsageGate } from './gate.ts';
import { SHARDS, shardKey } from './shards.ts';
import { ACCOUNT_KEY } from './taking.ts';
import { countsOf, type Units } from './units.ts';

/** Where such a request is counted: `record` never refuses, and never throws. */
export interface AccountRecorder {
  record(units: Units, log?: Logger): Promise<void>;
}

/**
 * Counts the units on one of the account's shards, as its requests are: never refused, whether
 * or not the secret has an account plan (the consumer may not read the callers' secret, where it
 * is kept), so that GET /usage shows them whenever it reads the plan. A store that cannot answer
 * leaves them uncounted, with a warning.
 */
export function accountRecorder(gate: UsageGate): AccountRecorder {
  return {
    async record(units, log) {
      const key = shardKey(ACCOUNT_KEY, Math.floor(gate.random() * SHARDS));
      const rules = { rate: undefined, day: {}, month: {} };
      try {
        await gate.store.take(key, { ...gate.instant(), counts: countsOf(units), rules });
      } catch (error) {
        (log ?? gate.log).warn('usage not recorded: store unreachable', {
          ...describeError(error),
        });
      }
    },
  };
}
