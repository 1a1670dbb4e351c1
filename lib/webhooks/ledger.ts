/**
 * The delivery ledger: what makes a webhook delivery run its action once. The code that runs a
 * queued invocation claims the delivery's key before running it; every write is conditional,
 * so of any number of copies (a sender's retries, SQS redelivering a message, concurrent
 * consumers or local workers) one wins the claim:
 *
 *   claim:    put {state: running, token, lease} IF no record, OR its expiresAt has passed,
 *             OR it is running with a lease that has lapsed (its consumer died)
 *   complete: set state done IF token is ours       (the action ran, or refused the input)
 *   release:  delete IF token is ours               (the run failed: a retry may run it)
 *
 * How long a key is remembered: a signature is accepted 5 minutes either side of its
 * timestamp t, so a copy can arrive until t + 5 min. The record is kept until
 * max(t + 5 min, now) + 10 min: the margin also covers SQS handing back a message that ran but
 * was not deleted (the queue's visibility timeout is 6 min).
 */
import { randomUUID } from 'node:crypto';
import type { AttributeValue, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { type DynamoDbSdk, lazyDynamoDb } from '../core/dynamo-db.js';

/** The signature tolerance: a delivery is accepted this long either side of its timestamp. */
export const ACCEPTANCE_WINDOW_MS = 5 * 60 * 1000;
/** Kept beyond the acceptance window, and at least this long after a run. */
export const REMEMBER_MARGIN_MS = 10 * 60 * 1000;

/** When a delivery stamped `timestampMs` may be forgotten. */
export function rememberUntil(timestampMs: number, nowMs: number): number {
  return Math.max(timestampMs + ACCEPTANCE_WINDOW_MS, nowMs) + REMEMBER_MARGIN_MS;
}

export type ClaimResult =
  | { readonly outcome: 'claimed'; readonly token: string }
  /** It ran already (or refused its input): this copy is a duplicate. */
  | { readonly outcome: 'done' }
  /** Another consumer is running it now, under a lease that has not lapsed. */
  | { readonly outcome: 'running' };

export interface ClaimRequest {
  readonly key: string;
  /** Epoch ms until which the record is kept. */
  readonly rememberUntilMs: number;
  /** Epoch ms after which a running claim counts as abandoned. */
  readonly leaseUntilMs: number;
}

export interface DeliveryLedger {
  /** Where records are kept, for log lines. */
  readonly description: string;
  claim(request: ClaimRequest): Promise<ClaimResult>;
  complete(key: string, token: string, rememberUntilMs: number): Promise<void>;
  release(key: string, token: string): Promise<void>;
}

interface Entry {
  state: 'running' | 'done';
  token: string;
  expiresAt: number;
  leaseUntil: number;
}

/**
 * The ledger in one process's memory: for `serverless invoke local` and unit tests, where no
 * table is configured. It does not outlive the process or reach other workers.
 */
export function memoryDeliveryLedger(now: () => number = Date.now): DeliveryLedger {
  const entries = new Map<string, Entry>();
  return {
    description: 'memory (this process only)',
    async claim({ key, rememberUntilMs, leaseUntilMs }) {
      const at = now();
      const entry = entries.get(key);
      if (entry && entry.expiresAt > at) {
        if (entry.state === 'done') return { outcome: 'done' };
        if (entry.leaseUntil > at) return { outcome: 'running' };
      }
      const token = newToken();
      entries.set(key, {
        state: 'running',
        token,
        expiresAt: rememberUntilMs,
        leaseUntil: leaseUntilMs,
      });
      return { outcome: 'claimed', token };
    },
    async complete(key, token, rememberUntilMs) {
      const entry = entries.get(key);
      if (entry?.token === token) {
        entry.state = 'done';
        entry.expiresAt = rememberUntilMs;
      }
    },
    async release(key, token) {
      if (entries.get(key)?.token === token) entries.delete(key);
    },
  };
}

interface DynamoDbLedgerOptions {
  readonly tableName: string;
  /** For tests; by default one client per container, configured from the environment. */
  readonly client?: DynamoDBClient;
  readonly now?: () => number;
}

type Sdk = DynamoDbSdk;

/**
 * The ledger in a DynamoDB table (partition key `deliveryKey`, TTL on `expiresAt` in epoch
 * seconds). DynamoDB deletes expired items lazily, up to days later, so every condition also
 * treats an item whose expiresAt has passed as absent.
 */
export function dynamoDbDeliveryLedger(options: DynamoDbLedgerOptions): DeliveryLedger {
  const { tableName } = options;
  const now = options.now ?? (() => Date.now());
  const connect = lazyDynamoDb(options.client);

  const keyOf = (key: string): Record<string, AttributeValue> => ({ deliveryKey: { S: key } });
  const seconds = (ms: number) => ({ N: String(Math.ceil(ms / 1000)) });

  /** Runs a conditional write; false when its condition did not hold. */
  async function conditional(
    write: (aws: { sdk: Sdk; client: DynamoDBClient }) => Promise<unknown>,
  ) {
    try {
      await write(await connect());
      return true;
    } catch (error) {
      if ((error as Error).name === 'ConditionalCheckFailedException') return false;
      throw error;
    }
  }

  return {
    description: `DynamoDB table ${tableName}`,
    async claim({ key, rememberUntilMs, leaseUntilMs }) {
      const token = newToken();
      const at = now();
      const won = await conditional(({ sdk: s, client: c }) =>
        c.send(
          new s.UpdateItemCommand({
            TableName: tableName,
            Key: keyOf(key),
            UpdateExpression:
              'SET #state = :running, #token = :token, expiresAt = :expiresAt, leaseUntil = :lease',
            ConditionExpression:
              'attribute_not_exists(deliveryKey) OR expiresAt < :nowSeconds OR ' +
              '(#state = :running AND leaseUntil < :nowMs)',
            ExpressionAttributeNames: { '#state': 'state', '#token': 'token' },
            ExpressionAttributeValues: {
              ':running': { S: 'running' },
              ':token': { S: token },
              ':expiresAt': seconds(rememberUntilMs),
              ':lease': { N: String(leaseUntilMs) },
              ':nowSeconds': { N: String(Math.floor(at / 1000)) },
              ':nowMs': { N: String(at) },
            },
          }),
        ),
      );
      if (won) return { outcome: 'claimed', token };
      const { sdk: s, client: c } = await connect();
      const found = await c.send(
        new s.GetItemCommand({ TableName: tableName, Key: keyOf(key), ConsistentRead: true }),
      );
      // Gone between the two calls (released by a failed run): this copy is not a duplicate.
      if (!found.Item) return { outcome: 'running' };
      return found.Item.state?.S === 'done' ? { outcome: 'done' } : { outcome: 'running' };
    },
    async complete(key, token, rememberUntilMs) {
      await conditional(({ sdk: s, client: c }) =>
        c.send(
          new s.UpdateItemCommand({
            TableName: tableName,
            Key: keyOf(key),
            UpdateExpression: 'SET #state = :done, expiresAt = :expiresAt REMOVE leaseUntil',
            ConditionExpression: '#token = :token',
            ExpressionAttributeNames: { '#state': 'state', '#token': 'token' },
            ExpressionAttributeValues: {
              ':done': { S: 'done' },
              ':token': { S: token },
              ':expiresAt': seconds(rememberUntilMs),
            },
          }),
        ),
      );
    },
    async release(key, token) {
      await conditional(({ sdk: s, client: c }) =>
        c.send(
          new s.DeleteItemCommand({
            TableName: tableName,
            Key: keyOf(key),
            ConditionExpression: '#token = :token',
            ExpressionAttributeNames: { '#token': 'token' },
            ExpressionAttributeValues: { ':token': { S: token } },
          }),
        ),
      );
    },
  };
}

function newToken(): string {
  return randomUUID();
}
