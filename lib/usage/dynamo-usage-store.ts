/**
 * Usage in a DynamoDB table of the stack: exact across every function and container, in one
 * conditional write per record taken from (dynamo-usage-item.ts has the item and the writes).
 *
 * The store picks each write's forms from the item as this container last saw it (sightings.ts,
 * refreshed by every write's ALL_NEW). A guess that no longer holds (another container filled
 * the bucket or opened the day first) fails its condition; DynamoDB then returns the item as it
 * is (ReturnValuesOnConditionCheckFailure ALL_OLD, no second read), which tells a request over
 * its plan (refused, done) from a wrong guess (written again in the right forms). dynalite does
 * not return that item: a consistent GetItem reads it there.
 *
 * A request refused by the item the container last saw is refused without a call: counters and
 * the bucket only grow within a window, so the refusal stands (a unit given back meanwhile is
 * seen late): a quota's for a second, the bucket's until its tokens are there by the clock.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { type DynamoDbBounds, lazyDynamoDb } from '../core/dynamo-db.js';
import {
  admissionWrite,
  giveBackWrite,
  type Item,
  keyOf,
  stateOfItem,
  type UpdateBuilder,
} from './dynamo-usage-item.js';
import { type Demand, givenBack, judge } from './limits.js';
import { likelyRunning, Sightings } from './sightings.js';
import type { TakeResult, UsageStore } from './store.js';

interface DynamoDbUsageStoreOptions {
  readonly tableName: string;
  /** For tests; by default one client per container, configured from the environment. */
  readonly client?: DynamoDBClient;
  /** How long a refusal read from the last item seen stands without a call (1 s). */
  readonly refusalCacheMs?: number;
}

/**
 * Admission is on every request's path: 1 s to connect, 1 s an attempt, 2 attempts, so that a
 * store that does not answer costs a request a few seconds at most before the failure policy
 * (USAGE_STORE_FAILURE) decides, rather than the function's time. Not shorter: a process serving
 * many requests at once (Lambda Managed Instances) opens many connections together, and a
 * connection that is only slow must not count as a store that failed.
 */
export const ADMISSION_BOUNDS: DynamoDbBounds = {
  connectionTimeoutMs: 1000,
  requestTimeoutMs: 1000,
  maxAttempts: 2,
  // A connection for each request a process serves at once (64 a vCPU on Managed Instances).
  maxSockets: 256,
};

/** Writes of one take before the store gives up (each one saw the item change). */
const MAX_WRITES = 8;

/** The parts of an UpdateItem's input that a write builds. */
export function writeInput(tableName: string, key: string, write: UpdateBuilder) {
  return {
    TableName: tableName,
    Key: keyOf(key),
    UpdateExpression: write.update,
    ConditionExpression: write.condition,
    ExpressionAttributeNames: write.names,
    ExpressionAttributeValues: write.values,
  };
}

/** Whether an error is a refused condition (the only error a conditional write expects). */
export const refusedCondition = (error: unknown) =>
  (error as Error).name === 'ConditionalCheckFailedException';

/** The usage store in a DynamoDB table (partition key `usageKey`, TTL on `expiresAt`). */
export function dynamoDbUsageStore(options: DynamoDbUsageStoreOptions): UsageStore {
  const { tableName } = options;
  const refusalCacheMs = options.refusalCacheMs ?? 1000;
  const connect = lazyDynamoDb(options.client, ADMISSION_BOUNDS);
  const sightings = new Sightings();
  /** The first write of a key this container has not seen, while it runs. */
  const learning = new Map<string, Promise<unknown>>();
  const read = async (key: string) => {
    const { sdk, client } = await connect();
    const input = { TableName: tableName, Key: keyOf(key), ConsistentRead: true };
    return (await client.send(new sdk.GetItemCommand(input))).Item;
  };

  /** A conditional UpdateItem: the new item, or (`ok` false) the item that failed it. */
  async function update(key: string, write: UpdateBuilder) {
    const { sdk, client } = await connect();
    try {
      const answer = await client.send(
        new sdk.UpdateItemCommand({
          ...writeInput(tableName, key, write),
          ReturnValues: 'ALL_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return { ok: true, item: answer.Attributes };
    } catch (error) {
      if (!refusedCondition(error)) throw error;
      // dynalite does not return the item: read it (DynamoDB always does).
      return { ok: false, item: (error as { Item?: Item }).Item ?? (await read(key)) };
    }
  }

  /** One take's writes, from what this container saw of the item. */
  async function takeSeen(key: string, demand: Demand): Promise<TakeResult> {
    const last = sightings.get(key);
    const cached = last && judge(last.state, demand);
    // A bucket only runs further ahead: its refusal stands however old the sighting.
    const stands =
      cached &&
      !cached.ok &&
      (cached.refusal.kind === 'rate' || demand.nowMs - last.at <= refusalCacheMs);
    if (stands) return { taken: false, state: last.state, refusal: cached.refusal };
    // A demand larger than a quota or the burst fits no item: refused without a call.
    const alone = judge(undefined, demand);
    if (!alone.ok) return { taken: false, state: last?.state, refusal: alone.refusal };
    let known = last?.state;
    for (let written = 0; written < MAX_WRITES; written++) {
      const running = likelyRunning(written === 0 ? last : undefined, demand);
      const result = await update(key, admissionWrite(known, demand, running));
      const state = stateOfItem(result.item);
      sightings.remember(key, state, demand.nowMs);
      if (result.ok && state) return { taken: true, state };
      const verdict = judge(state, demand);
      if (!verdict.ok) return { taken: false, state, refusal: verdict.refusal };
      known = state;
    }
    throw new Error(`usage item ${key} kept changing`);
  }

  /** A write whose refused condition means only "not this form": whether it was applied. */
  async function tryWrite(key: string, write: UpdateBuilder | undefined): Promise<boolean> {
    const { sdk, client } = await connect();
    try {
      if (write) await client.send(new sdk.UpdateItemCommand(writeInput(tableName, key, write)));
      return true;
    } catch (error) {
      if (refusedCondition(error)) return false;
      throw error;
    }
  }

  return {
    // A container that has not seen the item yet learns it from its first write; its other
    // requests meanwhile wait for it rather than all guessing blind.
    async take(key, demand) {
      // No await unless one is learning: the first request takes its place before any other.
      const first = !sightings.get(key) && learning.get(key);
      if (first) await first;
      if (sightings.get(key) || learning.has(key)) return takeSeen(key, demand);
      const taking = takeSeen(key, demand);
      const settled = taking.catch(() => undefined);
      learning.set(key, settled);
      void settled.then(() => learning.delete(key));
      return taking;
    },

    async giveBack(key, back) {
      // What this container saw, less the units: its guess of the forms holds, and a refusal
      // it would read from it no longer stands.
      const last = sightings.get(key);
      if (last) {
        sightings.set(key, {
          ...last,
          state: givenBack(last.state, back.counts, back, back.intervalUs),
        });
      }
      // The windows rarely roll between taking and giving back: one call, two or three then.
      (await tryWrite(key, giveBackWrite(back, ['day', 'month']))) ||
        (await tryWrite(key, giveBackWrite(back, ['month']))) ||
        (await tryWrite(key, giveBackWrite(back, [])));
    },

    peek: (key) => sightings.get(key)?.state,

    read: async (key) => stateOfItem(await read(key)),
  };
}
