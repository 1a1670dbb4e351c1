/**
 * The DynamoDB client of the stores that use one (the delivery ledger, the watcher's state, the
 * usage plans' counters): the SDK imported on first use, so that a function that never writes
 * pays nothing for it at cold start, and each call bounded so that a slow DynamoDB cannot eat the
 * function's time. And the one shape of their writes: a conditional write (`conditionalWrite`),
 * of which a store reads only whether it was applied and the item it asked for.
 */
import type { AttributeValue, DynamoDBClient } from '@aws-sdk/client-dynamodb';

export type DynamoDbSdk = typeof import('@aws-sdk/client-dynamodb');

/** An item, or a key, as DynamoDB carries it. */
export type Item = Record<string, AttributeValue>;

/** How long a call may take: each attempt's timeouts, and the attempts in all. */
export interface DynamoDbBounds {
  readonly connectionTimeoutMs: number;
  /** An attempt ends after this long with nothing heard on its connection. */
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
        // Silence on the connection ends an attempt. The SDK's own requestTimeout only warns,
        // and counts the time a busy process takes to start the attempt, which is not the table's.
        socketTimeout: bounds.requestTimeoutMs,
        ...(agent ? { httpAgent: agent, httpsAgent: agent } : {}),
      },
      maxAttempts: bounds.maxAttempts,
    });
    return { sdk, client };
  };
}

/** One table of a store: its name, and its SDK and client, made on first use. */
export interface DynamoDbTable {
  readonly name: string;
  readonly connect: ReturnType<typeof lazyDynamoDb>;
}

/** A table and its client (the given one, for tests; else one configured from the environment). */
export function dynamoDbTable(
  name: string,
  client?: DynamoDBClient,
  bounds?: DynamoDbBounds,
): DynamoDbTable {
  return { name, connect: lazyDynamoDb(client, bounds) };
}

/** What every conditional write names: the item's key, the condition, its placeholders. */
interface WriteParts {
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
export interface ConditionalUpdate extends WriteParts {
  /** The update expression: SET, REMOVE, ADD clauses. */
  readonly update: string;
  /** When applied, the item as it was before (`old`) or is now (`new`); none by default. */
  readonly returns?: 'old' | 'new';
}

/** A conditional DeleteItem. */
interface ConditionalDelete extends WriteParts {
  readonly delete: true;
}

const RETURN_VALUES = { old: 'ALL_OLD', new: 'ALL_NEW' } as const;

/**
 * Whether a write was applied, and the item it asked for: when applied, the item `returns` names
 * (an empty item when it names one but there was none; undefined when it names none); when not,
 * the item that failed the condition if `failedItem` asked for it (undefined if there is none).
 */
export interface WriteResult {
  readonly applied: boolean;
  readonly item: Item | undefined;
}

/**
 * The stores' one conditional write, an UpdateItem or a DeleteItem. A store builds the
 * expressions (what the write says and when it may apply); this sends them, and tells a lost
 * condition (`applied: false`, an answer) from a failure (thrown):
 *
 *   conditionalWrite(table, { key, update: 'SET #state = :done', condition: '#token = :token',
 *                             names, values, returns: 'old' })
 *   conditionalWrite(table, { key, delete: true, condition: 'leaseToken = :token', values })
 *
 * Each store's writes are this one call: the delivery ledger's claim (`returns: 'old'`: the
 * record it replaced) and its token-guarded completions; the watcher's claims and records; and
 * the shapes the usage store's writes take: an admission (`returns: 'new', failedItem: true`:
 * the item written, or the one that refused it, without a second call where DynamoDB returns
 * it), a give-back (applied or not), a lease taken (`failedItem: true`: whose lease holds) and
 * one released (`delete: true`, guarded by its token). For other calls (GetItem: readItem;
 * Scan, BatchWriteItem, PutItem) a store uses `table.connect()`.
 */
export async function conditionalWrite(
  table: DynamoDbTable,
  write: ConditionalUpdate | ConditionalDelete,
): Promise<WriteResult> {
  const { sdk, client } = await table.connect();
  const input = {
    TableName: table.name,
    Key: write.key,
    ConditionExpression: write.condition,
    ExpressionAttributeNames: write.names,
    ExpressionAttributeValues: write.values,
    ReturnValuesOnConditionCheckFailure: write.failedItem ? ('ALL_OLD' as const) : undefined,
  };
  const returns = 'delete' in write ? undefined : write.returns && RETURN_VALUES[write.returns];
  try {
    const answer = await client.send(
      'delete' in write
        ? new sdk.DeleteItemCommand(input)
        : new sdk.UpdateItemCommand({
            ...input,
            UpdateExpression: write.update,
            ReturnValues: returns,
          }),
    );
    return { applied: true, item: returns ? (answer.Attributes ?? {}) : undefined };
  } catch (error) {
    if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
    const returned =
      write.failedItem && ((error as { Item?: Item }).Item ?? (await readItem(table, write.key)));
    return { applied: false, item: returned || undefined };
  }
}

/**
 * DynamoDB's answers to a hot item: its partition takes about 1,000 writes a second. The table
 * still answers for every other item.
 */
const THROTTLES = new Set(['ProvisionedThroughputExceededException', 'ThrottlingException']);

/** Whether DynamoDB refused a call because its item was too busy (not because it is down). */
export function isThrottle(error: unknown): boolean {
  return error instanceof Error && THROTTLES.has(error.name);
}

/** The item as it is now (one consistent read); undefined when there is none. */
export async function readItem(table: DynamoDbTable, key: Item): Promise<Item | undefined> {
  const { sdk, client } = await table.connect();
  const found = await client.send(
    new sdk.GetItemCommand({ TableName: table.name, Key: key, ConsistentRead: true }),
  );
  return found.Item;
}
