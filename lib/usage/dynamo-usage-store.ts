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
 * A request refused by the item the container last saw, less than a second ago, is refused
 * without a call: counters and the bucket only grow within a window, so the refusal stands
 * (a unit given back in that second is seen a second late).
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { type DynamoDbBounds, lazyDynamoDb } from '../core/dynamo-db.js';
import {
  admissionWrite,
  giveBackWrite,
  type Item,
  keyOf,
  leaseWrite,
  stateOfItem,
  type UpdateBuilder,
} from './dynamo-usage-item.js';
import { type Demand, givenBack, judge, type UsageState } from './limits.js';
import { likelyRunning, Sightings } from './sightings.js';
import type { GiveBack, LeaseResult, TakeResult, UsageStore } from './store.js';

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
const ADMISSION_BOUNDS: DynamoDbBounds = {
  connectionTimeoutMs: 1000,
  requestTimeoutMs: 1000,
  maxAttempts: 2,
  // A connection for each request a process serves at once (64 a vCPU on Managed Instances).
  maxSockets: 256,
};

/** Writes of one take before the store gives up (each one saw the item change). */
const MAX_WRITES = 8;
/** Keys of one BatchGetItem (DynamoDB takes 100). */
const BATCH_KEYS = 100;

type Connect = ReturnType<typeof lazyDynamoDb>;
type UpdateOutcome = { ok: true; item: Item } | { ok: false; item: Item | undefined };

/** The usage store in a DynamoDB table (partition key `usageKey`, TTL on `expiresAt`). */
export function dynamoDbUsageStore(options: DynamoDbUsageStoreOptions): UsageStore {
  return new DynamoDbUsageStore(options);
}

class DynamoDbUsageStore implements UsageStore {
  readonly description: string;
  private readonly tableName: string;
  private readonly refusalCacheMs: number;
  private readonly connect: Connect;
  private readonly sightings = new Sightings();
  /** The first write of a key this container has not seen, while it runs. */
  private readonly firstSightings = new Map<string, Promise<void>>();

  constructor(options: DynamoDbUsageStoreOptions) {
    this.tableName = options.tableName;
    this.description = `DynamoDB table ${options.tableName}`;
    this.refusalCacheMs = options.refusalCacheMs ?? 1000;
    this.connect = lazyDynamoDb(options.client, ADMISSION_BOUNDS);
  }

  /**
   * A container that has not seen the item yet learns it from its first write; its other
   * requests meanwhile wait for it rather than all guessing blind.
   */
  async take(key: string, demand: Demand): Promise<TakeResult> {
    const learning = this.firstSightings.get(key);
    if (learning && !this.sightings.get(key)) await learning;
    if (this.sightings.get(key) || this.firstSightings.has(key)) return this.takeSeen(key, demand);
    const first = this.takeSeen(key, demand);
    const settled = first.then(
      () => undefined,
      () => undefined,
    );
    this.firstSightings.set(key, settled);
    void settled.then(() => this.firstSightings.delete(key));
    return first;
  }

  /** One take's writes, from what this container saw of the item. */
  private async takeSeen(key: string, demand: Demand): Promise<TakeResult> {
    const last = this.sightings.get(key);
    if (last && demand.nowMs - last.at <= this.refusalCacheMs) {
      const verdict = judge(last.state, demand);
      if (!verdict.ok) return { taken: false, state: last.state, refusal: verdict.refusal };
    }
    // A demand larger than a quota or the burst fits no item: refused without a call.
    const alone = judge(undefined, demand);
    if (!alone.ok) return { taken: false, state: last?.state, refusal: alone.refusal };
    let known = last?.state;
    for (let written = 0; written < MAX_WRITES; written++) {
      const running = likelyRunning(written === 0 ? last : undefined, demand);
      const result = await this.update(key, admissionWrite(known, demand, running));
      const state = stateOfItem(result.item);
      this.sightings.remember(key, state, demand.nowMs);
      if (result.ok && state) return { taken: true, state };
      const verdict = judge(state, demand);
      if (!verdict.ok) return { taken: false, state, refusal: verdict.refusal };
      known = state;
    }
    throw new Error(`usage item ${key} changed under ${MAX_WRITES} writes in a row`);
  }

  /** A conditional UpdateItem: the new item, or the item that failed its condition. */
  private async update(key: string, write: UpdateBuilder): Promise<UpdateOutcome> {
    const { sdk, client } = await this.connect();
    try {
      const answer = await client.send(
        new sdk.UpdateItemCommand({
          ...this.writeInput(key, write),
          ReturnValues: 'ALL_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return { ok: true, item: answer.Attributes ?? {} };
    } catch (error) {
      if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
      const returned = (error as { Item?: Item }).Item;
      if (returned) return { ok: false, item: returned };
      // dynalite does not return the item: read it (DynamoDB always does).
      const found = await client.send(
        new sdk.GetItemCommand({
          TableName: this.tableName,
          Key: keyOf(key),
          ConsistentRead: true,
        }),
      );
      return { ok: false, item: found.Item };
    }
  }

  private writeInput(key: string, write: UpdateBuilder) {
    return {
      TableName: this.tableName,
      Key: keyOf(key),
      UpdateExpression: write.update,
      ConditionExpression: write.condition,
      ExpressionAttributeNames: write.names,
      ExpressionAttributeValues: write.values,
    };
  }

  /** A write whose refused condition means only "not this form": whether it was applied. */
  private async tryWrite(key: string, write: UpdateBuilder | undefined): Promise<boolean> {
    if (!write) return true;
    const { sdk, client } = await this.connect();
    try {
      await client.send(new sdk.UpdateItemCommand(this.writeInput(key, write)));
      return true;
    } catch (error) {
      if ((error as Error).name === 'ConditionalCheckFailedException') return false;
      throw error;
    }
  }

  async giveBack(key: string, back: GiveBack): Promise<void> {
    // What this container saw, less the units: its guess of the forms holds, and a refusal
    // it would read from it no longer stands.
    const last = this.sightings.get(key);
    if (last) this.sightings.revise(key, givenBack(last.state, back.counts, back, back.intervalUs));
    // The windows rarely roll between taking and giving back: one call, two or three then.
    if (await this.tryWrite(key, giveBackWrite(back, ['day', 'month']))) return;
    if (await this.tryWrite(key, giveBackWrite(back, ['month']))) return;
    await this.tryWrite(key, giveBackWrite(back, []));
  }

  peek(key: string): UsageState | undefined {
    return this.sightings.get(key)?.state;
  }

  async readMany(keys: readonly string[]): Promise<Map<string, UsageState>> {
    const { sdk, client } = await this.connect();
    const found = new Map<string, UsageState>();
    for (let start = 0; start < keys.length; start += BATCH_KEYS) {
      let wanted: Item[] = keys.slice(start, start + BATCH_KEYS).map(keyOf);
      // Keys DynamoDB leaves unprocessed (throttled) are asked again, a few times.
      for (let round = 0; wanted.length > 0 && round < 5; round++) {
        const answer = await client.send(
          new sdk.BatchGetItemCommand({
            RequestItems: { [this.tableName]: { Keys: wanted, ConsistentRead: true } },
          }),
        );
        for (const item of answer.Responses?.[this.tableName] ?? []) {
          const state = stateOfItem(item);
          if (state && item.usageKey?.S) found.set(item.usageKey.S, state);
        }
        wanted = answer.UnprocessedKeys?.[this.tableName]?.Keys ?? [];
      }
      if (wanted.length > 0) throw new Error('usage items left unread: DynamoDB throttled them');
    }
    return found;
  }

  async acquireLease(
    key: string,
    token: string,
    untilMs: number,
    nowMs: number,
  ): Promise<LeaseResult> {
    const result = await this.update(key, leaseWrite(token, untilMs, nowMs));
    if (result.ok) return { acquired: true };
    return { acquired: false, untilMs: Number(result.item?.leaseUntil?.N ?? nowMs) };
  }

  async releaseLease(key: string, token: string): Promise<void> {
    const { sdk, client } = await this.connect();
    try {
      await client.send(
        new sdk.DeleteItemCommand({
          TableName: this.tableName,
          Key: keyOf(key),
          ConditionExpression: '#leaseToken = :token',
          ExpressionAttributeNames: { '#leaseToken': 'leaseToken' },
          ExpressionAttributeValues: { ':token': { S: token } },
        }),
      );
    } catch (error) {
      // Taken over after it lapsed: the lease is another holder's now.
      if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
    }
  }
}
