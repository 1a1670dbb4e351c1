/**
 * One long-running request of a caller at a time (`cancel-reserved`): a lease in the usage
 * table until its end, or until released. A second request while the lease runs gets
 * ThrottleLimitedError (429 / `410`), with no call to the table when this container holds it. While the table fails, the lease is held in the
 * container's memory, under either policy (an outage lifts no limit but what memory cannot
 * hold). Apart from the usage store and the gate, so that only the function that holds leases
 * carries it, and only its role may delete from the table (sls/resolvers/iam.ts).
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { deployedSetting } from '../core/deployed-settings.ts';
import { conditionalWrite, dynamoDbTable } from '../core/dynamo-db.ts';
import { ThrottleLimitedError } from '../core/errors.ts';
import { describeError, type Logger } from '../core/log.ts';
import { perRuntime } from '../core/per-runtime.ts';
import type { Runtime } from '../runtime.ts';
import { keyOf, leaseWrite } from './dynamo-usage-item.ts';
import { ADMISSION_BOUNDS } from './dynamo-usage-store.ts';
import type { MetricRecorder, UsageGate } from './gate.ts';
import { usageGateOf } from './setup.ts';

/** Where leases are kept: `acquire` answers when the other holder's lease ends, if refused. */
export interface LeaseStore {
  acquire(key: string, token: string, untilMs: number, nowMs: number): Promise<number | undefined>;
  /** Gives the lease up, if it is still this token's. */
  release(key: string, token: string): Promise<void>;
}

/** The lease of a caller's long-running route. */
const leaseKey = (what: string, callerId: string) => `lease#${what}#${callerId}`;

/** Leases in this process's memory: tests, local runs without a table, and while it fails. */
export function memoryLeaseStore(): LeaseStore {
  const leases = new Map<string, { token: string; untilMs: number }>();
  return {
    async acquire(key, token, untilMs, nowMs) {
      const held = leases.get(key);
      if (held && held.untilMs > nowMs) return held.untilMs;
      leases.set(key, { token, untilMs });
    },
    async release(key, token) {
      if (leases.get(key)?.token === token) leases.delete(key);
    },
  };
}

/** Leases in the usage table: a conditional write takes one, a conditional delete gives it up. */
export function dynamoDbLeaseStore(options: {
  readonly tableName: string;
  readonly client?: DynamoDBClient;
}): LeaseStore {
  const table = dynamoDbTable(options.tableName, options.client, ADMISSION_BOUNDS);
  return {
    async acquire(key, token, untilMs, nowMs) {
      // Refused: the item that refused it says until when the other holder's lease runs.
      const write = leaseWrite(token, untilMs, nowMs).of(key, { failedItem: true });
      const taken = await conditionalWrite(table, write);
      if (!taken.applied) return Number(taken.item?.leaseUntil?.N ?? untilMs);
    },
    async release(key, token) {
      // Not applied: taken over after it lapsed, the lease is another holder's now.
      await conditionalWrite(table, {
        key: keyOf(key),
        delete: true,
        condition: 'leaseToken = :token',
        values: { ':token': { S: token } },
      });
    },
  };
}

interface LeaseOptions {
  readonly metrics?: MetricRecorder;
  readonly log?: Logger;
}

/** Takes the caller's lease for `ttlMs`; returns its release, or throws the error to answer. */
export type AcquireLease = (
  callerId: string,
  ttlMs: number,
  options?: LeaseOptions,
) => Promise<() => Promise<void>>;

/**
 * Leases in `store`, held in memory while it fails. A lease this container holds refuses a
 * second request of its caller with no call to the store, until it is released: a flood of
 * them costs the table nothing.
 */
export function leasesIn(store: LeaseStore, gate: UsageGate): AcquireLease {
  const memory = memoryLeaseStore();
  /** The leases this container holds, by key: its token, and until when. */
  const own = new Map<string, { readonly token: string; readonly untilMs: number }>();
  return async (callerId, ttlMs, options = {}) => {
    const what = 'cancel-reserved';
    const key = leaseKey(what, callerId);
    const nowMs = gate.now();
    const token = crypto.randomUUID();
    let held = memory;
    // Its own lease, still running: refused with no call.
    let until = own.get(key)?.untilMs;
    if (until === undefined || until <= nowMs) {
      until = undefined;
      try {
        if (gate.asksStore(options.metrics)) {
          until = await store.acquire(key, token, nowMs + ttlMs, nowMs);
          gate.storeAnswered();
          held = store;
        }
      } catch (error) {
        gate.storeFailed(error, options.metrics, options.log);
      }
      if (held === memory) until = await memory.acquire(key, token, nowMs + ttlMs, nowMs);
    }
    if (until !== undefined) throw new ThrottleLimitedError(what, (until - nowMs) / 1000);
    own.set(key, { token, untilMs: nowMs + ttlMs });
    return () => {
      if (own.get(key)?.token === token) own.delete(key);
      return held.release(key, token).catch((error: unknown) => {
        // The lease lapses at its end anyway.
        (options.log ?? gate.log).warn('lease not released: store unreachable', {
          ...describeError(error),
        });
      });
    };
  };
}

/** The container's leases: in the usage table (USAGE_TABLE), else in this process's memory. */
export const leasesOf = perRuntime((runtime: Runtime) => {
  const { config } = runtime;
  const tableName = deployedSetting(config, config.usageTable, 'USAGE_TABLE');
  const store = tableName ? dynamoDbLeaseStore({ tableName }) : memoryLeaseStore();
  return leasesIn(store, usageGateOf(runtime));
});
