/**
 * The DynamoDB client of the stores that use one (the delivery ledger, the watcher's state, the
 * usage plans' counters): the SDK imported on first use, so that a function that never writes
 * pays nothing for it at cold start, and each call bounded so that a slow DynamoDB cannot eat the
 * function's time. And the one shape of their writes: a conditional write (`DynamoDbTable`), of
 * which a store reads only whether it was applied and the item it asked for.
 */
import type { AttributeValue, DynamoDBClient } from '@aws-sdk/client-dynamodb';

export type DynamoDbSdk = typeof import('@aws-sdk/client-dynamodb');

/** An item, or a key, as DynamoDB carries it. */
export type Item = Record<string, AttributeValue>;

/** How long a call may take: each attempt's timeouts, and the attempts in all. */
export interface DynamoDbBounds {
  readonly connectionTimeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly maxAttempts: number;
  /**
   * Connections the client keeps open at once (the SDK's default is 50). The SDK counts a
   * request's wait for a free connection in its connection timeout: a process serving many
   * requests at once needs one for each, or the waiting ones time out.
   */
  readonly maxSockets?: number;
}

/** The stores' default: 1 s to connect, 3 s an attempt, 3 attempts. */
const DEFAULT_BOUNDS: DynamoDbBounds = {
  connectionTimeoutMs: 1000,
  requestTimeoutMs: 3000,
  maxAttempts: 3,
};

/** The SDK and a client (the given one, for tests), both made once, on first use. */
export function lazyDynamoDb(
  given?: DynamoDBClient,
  bounds: DynamoDbBounds = DEFAULT_BOUNDS,
): () => Promise<{ sdk: DynamoDbSdk; client: DynamoDBClient }> {
  let client = given;
  let sdk: DynamoDbSdk | undefined;
  return async () => {
    sdk ??= await import('@aws-sdk/client-dynamodb');
    const agent = bounds.maxSockets
      ? { keepAlive: true, maxSockets: bounds.maxSockets }
      : undefined;
    client ??= new sdk.DynamoDBClient({
      requestHandler: {
        connectionTimeout: bounds.connectionTimeoutMs,
        requestTimeout: bounds.requestTimeoutMs,
        ...(agent ? { httpAgent: agent, httpsAgent: agent } : {}),
      },
      maxAttempts: bounds.maxAttempts,
    });
    return { sdk, client };
  };
}

/** A write that DynamoDB applies only while its condition holds (without one: always). */
interface ConditionalWrite {
  readonly key: Item;
  /** A condition expression; a write without one is always applied. */
  readonly condition?: string | undefined;
  /** `#name` placeholders (for reserved words such as `state` and `status`). */
  readonly names?: Record<string, string>;
  /** `:value` placeholders. */
  readonly values?: Item;
  /**
   * When the condition fails, also return the item that failed it. DynamoDB returns it with the
   * failure (ReturnValuesOnConditionCheckFailure); where a store does not (dynalite), it is read
   * with one consistent GetItem.
   */
  readonly failedItem?: boolean;
}

/** A conditional UpdateItem. */
export interface ConditionalUpdate extends ConditionalWrite {
  /** The update expression: SET, REMOVE, ADD clauses. */
  readonly update: string;
  /** When applied, the item as it was before (`old`) or is now (`new`); none by default. */
  readonly returns?: 'old' | 'new';
}

/** A conditional DeleteItem. */
export type ConditionalDelete = ConditionalWrite;

/**
 * Whether a write was applied, and the item it asked for: when applied, the item `returns` names
 * (an empty item when it names one but there was none; undefined when it names none); when not,
 * the item that failed the condition if `failedItem` asked for it (undefined if there is none).
 */
export interface WriteResult {
  readonly applied: boolean;
  readonly item: Item | undefined;
}

const RETURNS = { old: 'ALL_OLD', new: 'ALL_NEW' } as const;

/**
 * One table of a store: its name and its client, and the writes every store makes the same way.
 * A store builds its expressions (what the write says and when it may apply); the table sends
 * them and tells a lost condition (`applied: false`) from a failure (thrown).
 *
 *   update: table.update({ key, update: 'SET #state = :done', condition: '#token = :token',
 *                          names, values, returns: 'old' })
 *   delete: table.delete({ key, condition: 'leaseToken = :token', values })
 *
 * For other calls (Scan, BatchWriteItem, PutItem) a store uses `connect()`.
 */
export class DynamoDbTable {
  /** The SDK and the client, made on first use. */
  readonly connect: ReturnType<typeof lazyDynamoDb>;

  constructor(
    readonly name: string,
    /** For tests; by default one client per container, configured from the environment. */
    client?: DynamoDBClient,
    bounds?: DynamoDbBounds,
  ) {
    this.connect = lazyDynamoDb(client, bounds);
  }

  /** A conditional UpdateItem: whether it was applied, and the item asked for. */
  async update(write: ConditionalUpdate): Promise<WriteResult> {
    const { sdk, client } = await this.connect();
    const command = new sdk.UpdateItemCommand({
      ...this.input(write),
      UpdateExpression: write.update,
      ReturnValues: write.returns && RETURNS[write.returns],
    });
    return this.conditionally(write, async () => {
      const answer = await client.send(command);
      return write.returns ? (answer.Attributes ?? {}) : undefined;
    });
  }

  /** A conditional DeleteItem: whether it was applied (and, if asked, the item that was not). */
  async delete(write: ConditionalDelete): Promise<WriteResult> {
    const { sdk, client } = await this.connect();
    const command = new sdk.DeleteItemCommand(this.input(write));
    return this.conditionally(write, async () => {
      await client.send(command);
      return undefined;
    });
  }

  /** The item as it is now (one consistent read); undefined when there is none. */
  async read(key: Item): Promise<Item | undefined> {
    const { sdk, client } = await this.connect();
    const found = await client.send(
      new sdk.GetItemCommand({ TableName: this.name, Key: key, ConsistentRead: true }),
    );
    return found.Item;
  }

  /** The parts every conditional write shares. */
  private input(write: ConditionalWrite) {
    return {
      TableName: this.name,
      Key: write.key,
      ConditionExpression: write.condition,
      ExpressionAttributeNames: write.names,
      ExpressionAttributeValues: write.values,
      ReturnValuesOnConditionCheckFailure: write.failedItem ? ('ALL_OLD' as const) : undefined,
    };
  }

  /** Sends a write; a lost condition is an answer (not applied), any other failure is thrown. */
  private async conditionally(
    write: ConditionalWrite,
    send: () => Promise<Item | undefined>,
  ): Promise<WriteResult> {
    try {
      return { applied: true, item: await send() };
    } catch (error) {
      if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
      if (!write.failedItem) return { applied: false, item: undefined };
      const returned = (error as { Item?: Item }).Item;
      return { applied: false, item: returned ?? (await this.read(write.key)) };
    }
  }
}
