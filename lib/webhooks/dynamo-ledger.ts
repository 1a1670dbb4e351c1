/**
 * The delivery ledger in a DynamoDB table (partition key `deliveryKey`, TTL on `expiresAt` in
 * epoch seconds): the rules of ledger.ts, each a conditional write. DynamoDB deletes expired
 * items lazily, up to days later, so every condition also treats an item whose expiresAt has
 * passed as absent.
 *
 * A claim is one UpdateItem, which returns the record as it was (for its attempts and whether a
 * lease lapsed); when its condition fails, one consistent read says why (done, parked, or
 * running elsewhere). Completing, releasing and parking are UpdateItems applied only while the
 * claim's token is the record's.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  type ConditionalUpdate,
  conditionalWrite,
  type DynamoDbTable,
  dynamoDbTable,
  type Item,
  readItem,
} from '../core/dynamo-db.ts';
import {
  type ClaimRequest,
  type ClaimResult,
  type DeliveryLedger,
  newToken,
  type ParkRequest,
} from './ledger.ts';

interface DynamoDbLedgerOptions {
  readonly tableName: string;
  /** For tests; by default one client per container, configured from the environment. */
  readonly client?: DynamoDBClient;
  readonly now?: () => number;
}

/** `state` is a DynamoDB reserved word, `token` too. */
const NAMES = { '#state': 'state', '#token': 'token' };

const keyOf = (key: string): Item => ({ deliveryKey: { S: key } });
const seconds = (ms: number) => ({ N: String(Math.ceil(ms / 1000)) });

class DynamoDbDeliveryLedger implements DeliveryLedger {
  readonly description: string;
  private readonly table: DynamoDbTable;
  private readonly now: () => number;

  constructor(options: DynamoDbLedgerOptions) {
    this.table = dynamoDbTable(options.tableName, options.client);
    this.now = options.now ?? (() => Date.now());
    this.description = `DynamoDB table ${options.tableName}`;
  }

  async claim(request: ClaimRequest): Promise<ClaimResult> {
    const token = newToken();
    const at = this.now();
    const written = await conditionalWrite(this.table, claimWrite(request, token, at));
    if (written.applied) return claimedOver(written.item ?? {}, token, at, request.redrive);
    return heldBy(await readItem(this.table, keyOf(request.key)));
  }

  async complete(key: string, token: string, rememberUntilMs: number): Promise<void> {
    await this.own(key, token, 'SET #state = :done, expiresAt = :expiresAt REMOVE leaseUntil', {
      ':done': { S: 'done' },
      ':expiresAt': seconds(rememberUntilMs),
    });
  }

  async release(key: string, token: string): Promise<void> {
    await this.own(key, token, 'SET #state = :pending REMOVE leaseUntil', {
      ':pending': { S: 'pending' },
    });
  }

  async park(key: string, token: string, request: ParkRequest): Promise<void> {
    await this.own(
      key,
      token,
      'SET #state = :parked, reason = :reason, messageId = :messageId, expiresAt = :expiresAt ' +
        'REMOVE leaseUntil',
      {
        ':parked': { S: 'parked' },
        ':reason': { S: request.reason },
        ':messageId': { S: request.messageId },
        ':expiresAt': seconds(request.rememberUntilMs),
      },
    );
  }

  /** A write of our own claim: applied only while the token is ours (else nothing changes). */
  private async own(key: string, token: string, update: string, values: Item): Promise<void> {
    await conditionalWrite(this.table, {
      key: keyOf(key),
      update,
      condition: '#token = :token',
      names: NAMES,
      values: { ...values, ':token': { S: token } },
    });
  }
}

/** The ledger in a DynamoDB table. */
export function dynamoDbDeliveryLedger(options: DynamoDbLedgerOptions): DeliveryLedger {
  return new DynamoDbDeliveryLedger(options);
}

/** The claim: running, under our token and lease, where the record allows one (ledger.ts). */
function claimWrite(
  { key, rememberUntilMs, leaseUntilMs, redrive }: ClaimRequest,
  token: string,
  at: number,
): ConditionalUpdate {
  return {
    key: keyOf(key),
    update:
      'SET #state = :running, #token = :token, expiresAt = :expiresAt, ' +
      'leaseUntil = :lease, ' +
      (redrive ? 'attempts = :one' : 'attempts = if_not_exists(attempts, :zero) + :one') +
      ' REMOVE reason, messageId',
    condition:
      'attribute_not_exists(deliveryKey) OR expiresAt < :nowSeconds OR #state = :pending ' +
      'OR (#state = :running AND leaseUntil < :nowMs)' +
      (redrive ? ' OR #state = :parked' : ''),
    names: NAMES,
    values: {
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
    returns: 'old',
  };
}

/** Our claim, read from the record it replaced (empty when there was none). */
function claimedOver(old: Item, token: string, at: number, redrive = false): ClaimResult {
  const expired = Number(old.expiresAt?.N ?? 0) * 1000 <= at;
  const carried = expired || redrive ? 0 : Number(old.attempts?.N ?? 0);
  return {
    outcome: 'claimed',
    token,
    attempt: carried + 1,
    lapsed: !expired && old.state?.S === 'running',
  };
}

/** Why a claim was refused, from the record as it is now. */
function heldBy(item: Item | undefined): ClaimResult {
  const state = item?.state?.S;
  if (state === 'done') return { outcome: 'done' };
  if (state === 'parked') {
    return {
      outcome: 'parked',
      reason: item?.reason?.S ?? '',
      messageId: item?.messageId?.S ?? '',
    };
  }
  // Running elsewhere, or changed between the two calls: this copy comes back later.
  return { outcome: 'running' };
}
