/**
 * The delivery ledger: what makes a queued invocation run its action once. The consumer claims
 * the invocation's key before running it; every write is conditional, so of any number of
 * copies (a sender's retries, SQS redelivering a message, concurrent consumers or local workers)
 * one wins the claim. A record is in one of four states:
 *
 *   running  claimed by a consumer, under a lease (its function's deadline and a margin)
 *   done     it ran (or the action refused its input for good): copies run nothing
 *   pending  the last attempt did not reach the action, or the action asked to be called later
 *            (busy): the next copy claims it and tries again; `attempts` counts the tries
 *   parked   its outcome is unknown or it cannot run (kept in the dead-letter queue with the
 *            reason): copies run nothing, unless an operator redrives the parked message
 *
 *   claim:    running, attempts + 1   IF no record, OR expired, OR pending,
 *                                     OR running with a lapsed lease (its consumer stopped),
 *                                     OR parked and this is the operator's redrive
 *   complete: done                    IF the token is ours
 *   release:  pending                 IF the token is ours
 *   park:     parked, with the reason IF the token is ours
 *
 * A claim that takes over a lapsed lease says so: the run before it may have reached the
 * action, so its outcome is unknown.
 *
 * How long a key is remembered: at least as long as a sender may retry, which Standard
 * Webhooks senders do for days, re-signing each retry with the same id (DELIVERY_MEMORY_DAYS,
 * 4 by default, as long as the queue keeps a message); a parked record as long as the
 * dead-letter queue keeps its message (14 days), so that a late copy does not run what an
 * operator has not looked at yet.
 */
import { randomUUID } from 'node:crypto';
import type { AttributeValue, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { type DynamoDbSdk, lazyDynamoDb } from '../core/dynamo-db.js';

/** The signature tolerance: a delivery is accepted this long either side of its timestamp. */
export const ACCEPTANCE_WINDOW_MS = 5 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;
/** How long a done delivery is remembered by default: the invocation queue's retention. */
export const DEFAULT_MEMORY_MS = 4 * DAY_MS;
/** How long a parked delivery is remembered: the dead-letter queue's retention. */
export const PARKED_MEMORY_MS = 14 * DAY_MS;

/** When a delivery stamped `timestampMs` may be forgotten: `memoryMs` after its last copy. */
export function rememberUntil(timestampMs: number, nowMs: number, memoryMs = DEFAULT_MEMORY_MS) {
  return Math.max(timestampMs + ACCEPTANCE_WINDOW_MS, nowMs) + memoryMs;
}

type ClaimResult =
  | {
      readonly outcome: 'claimed';
      readonly token: string;
      /** This attempt's number: 1 for the first. */
      readonly attempt: number;
      /** The run before this one stopped while running: it may have reached the action. */
      readonly lapsed: boolean;
    }
  /** It ran already (or the action refused its input): this copy is a duplicate. */
  | { readonly outcome: 'done' }
  /** Another consumer is running it now, under a lease that has not lapsed. */
  | { readonly outcome: 'running' }
  /** It is parked: this copy runs nothing. `messageId` is the message that was parked. */
  | { readonly outcome: 'parked'; readonly reason: string; readonly messageId: string };

interface ClaimRequest {
  readonly key: string;
  /** Epoch ms until which the record is kept. */
  readonly rememberUntilMs: number;
  /** Epoch ms after which a running claim counts as abandoned. */
  readonly leaseUntilMs: number;
  /** The operator redrove a parked message: it may run again (its attempts start afresh). */
  readonly redrive?: boolean;
}

interface ParkRequest {
  readonly reason: string;
  /** The SQS message that carries it to the dead-letter queue. */
  readonly messageId: string;
  readonly rememberUntilMs: number;
}

export interface DeliveryLedger {
  /** Where records are kept, for log lines. */
  readonly description: string;
  claim(request: ClaimRequest): Promise<ClaimResult>;
  complete(key: string, token: string, rememberUntilMs: number): Promise<void>;
  release(key: string, token: string): Promise<void>;
  park(key: string, token: string, request: ParkRequest): Promise<void>;
}

type State = 'running' | 'done' | 'pending' | 'parked';

interface Entry {
  state: State;
  token: string;
  expiresAt: number;
  leaseUntil: number;
  attempts: number;
  reason?: string;
  messageId?: string;
}

/**
 * The ledger in one process's memory: for `serverless invoke local` and unit tests, where no
 * table is configured. It does not outlive the process or reach other workers.
 */
export function memoryDeliveryLedger(now: () => number = Date.now): DeliveryLedger {
  const entries = new Map<string, Entry>();
  const ours = (key: string, token: string) => {
    const entry = entries.get(key);
    return entry?.token === token ? entry : undefined;
  };
  return {
    description: 'memory (this process only)',
    async claim({ key, rememberUntilMs, leaseUntilMs, redrive }) {
      const at = now();
      const entry = entries.get(key);
      const live = entry && entry.expiresAt > at ? entry : undefined;
      if (live?.state === 'done') return { outcome: 'done' };
      if (live?.state === 'running' && live.leaseUntil > at) return { outcome: 'running' };
      if (live?.state === 'parked' && !redrive) {
        return { outcome: 'parked', reason: live.reason ?? '', messageId: live.messageId ?? '' };
      }
      const token = newToken();
      const attempt = live && !(live.state === 'parked' && redrive) ? live.attempts + 1 : 1;
      entries.set(key, {
        state: 'running',
        token,
        expiresAt: rememberUntilMs,
        leaseUntil: leaseUntilMs,
        attempts: attempt,
      });
      return { outcome: 'claimed', token, attempt, lapsed: live?.state === 'running' };
    },
    async complete(key, token, rememberUntilMs) {
      const entry = ours(key, token);
      if (entry) Object.assign(entry, { state: 'done', expiresAt: rememberUntilMs });
    },
    async release(key, token) {
      const entry = ours(key, token);
      if (entry) entry.state = 'pending';
    },
    async park(key, token, { reason, messageId, rememberUntilMs }) {
      const entry = ours(key, token);
      if (entry)
        Object.assign(entry, { state: 'parked', reason, messageId, expiresAt: rememberUntilMs });
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
type Item = Record<string, AttributeValue>;

/**
 * The ledger in a DynamoDB table (partition key `deliveryKey`, TTL on `expiresAt` in epoch
 * seconds). DynamoDB deletes expired items lazily, up to days later, so every condition also
 * treats an item whose expiresAt has passed as absent.
 */
export function dynamoDbDeliveryLedger(options: DynamoDbLedgerOptions): DeliveryLedger {
  const { tableName } = options;
  const now = options.now ?? (() => Date.now());
  const connect = lazyDynamoDb(options.client);

  const keyOf = (key: string): Item => ({ deliveryKey: { S: key } });
  const seconds = (ms: number) => ({ N: String(Math.ceil(ms / 1000)) });
  const names = { '#state': 'state', '#token': 'token' };

  /** Runs a conditional write; the old item when it was applied, false when its condition failed. */
  async function conditional(
    write: (aws: { sdk: Sdk; client: DynamoDBClient }) => Promise<{ Attributes?: Item }>,
  ): Promise<Item | false> {
    try {
      return (await write(await connect())).Attributes ?? {};
    } catch (error) {
      if ((error as Error).name === 'ConditionalCheckFailedException') return false;
      throw error;
    }
  }

  /** A write of our own claim: applied only while the token is ours. */
  const ownWrite = (key: string, token: string, update: string, values: Item) =>
    conditional(({ sdk: s, client: c }) =>
      c.send(
        new s.UpdateItemCommand({
          TableName: tableName,
          Key: keyOf(key),
          UpdateExpression: update,
          ConditionExpression: '#token = :token',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: { ...values, ':token': { S: token } },
        }),
      ),
    );

  return {
    description: `DynamoDB table ${tableName}`,
    async claim({ key, rememberUntilMs, leaseUntilMs, redrive }) {
      const token = newToken();
      const at = now();
      const old = await conditional(({ sdk: s, client: c }) =>
        c.send(
          new s.UpdateItemCommand({
            TableName: tableName,
            Key: keyOf(key),
            UpdateExpression:
              'SET #state = :running, #token = :token, expiresAt = :expiresAt, ' +
              'leaseUntil = :lease, ' +
              (redrive ? 'attempts = :one' : 'attempts = if_not_exists(attempts, :zero) + :one') +
              ' REMOVE reason, messageId',
            ConditionExpression:
              'attribute_not_exists(deliveryKey) OR expiresAt < :nowSeconds OR #state = :pending ' +
              'OR (#state = :running AND leaseUntil < :nowMs)' +
              (redrive ? ' OR #state = :parked' : ''),
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: {
              ':running': { S: 'running' },
              ':pending': { S: 'pending' },
              ...(redrive ? { ':parked': { S: 'parked' } } : { ':zero': { N: '0' } }),
              ':one': { N: '1' },
              ':token': { S: token },
              ':expiresAt': seconds(rememberUntilMs),
              ':lease': { N: String(leaseUntilMs) },
              ':nowSeconds': { N: String(Math.floor(at / 1000)) },
              ':nowMs': { N: String(at) },
            },
            ReturnValues: 'ALL_OLD',
          }),
        ),
      );
      if (old) {
        const expired = Number(old.expiresAt?.N ?? 0) * 1000 <= at;
        const carried = expired || redrive ? 0 : Number(old.attempts?.N ?? 0);
        return {
          outcome: 'claimed',
          token,
          attempt: carried + 1,
          lapsed: !expired && old.state?.S === 'running',
        };
      }
      const { sdk: s, client: c } = await connect();
      const found = await c.send(
        new s.GetItemCommand({ TableName: tableName, Key: keyOf(key), ConsistentRead: true }),
      );
      const state = found.Item?.state?.S;
      if (state === 'done') return { outcome: 'done' };
      if (state === 'parked') {
        return {
          outcome: 'parked',
          reason: found.Item?.reason?.S ?? '',
          messageId: found.Item?.messageId?.S ?? '',
        };
      }
      // Running elsewhere, or changed between the two calls: this copy comes back later.
      return { outcome: 'running' };
    },
    async complete(key, token, rememberUntilMs) {
      await ownWrite(key, token, 'SET #state = :done, expiresAt = :expiresAt REMOVE leaseUntil', {
        ':done': { S: 'done' },
        ':expiresAt': seconds(rememberUntilMs),
      });
    },
    async release(key, token) {
      await ownWrite(key, token, 'SET #state = :pending REMOVE leaseUntil', {
        ':pending': { S: 'pending' },
      });
    },
    async park(key, token, { reason, messageId, rememberUntilMs }) {
      await ownWrite(
        key,
        token,
        'SET #state = :parked, reason = :reason, messageId = :messageId, expiresAt = :expiresAt ' +
          'REMOVE leaseUntil',
        {
          ':parked': { S: 'parked' },
          ':reason': { S: reason },
          ':messageId': { S: messageId },
          ':expiresAt': seconds(rememberUntilMs),
        },
      );
    },
  };
}

function newToken(): string {
  return randomUUID();
}
