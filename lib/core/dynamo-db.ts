/**
 * The DynamoDB client of the stores that use one (the delivery ledger, the watcher's state):
 * the SDK imported on first use, so that a function that never writes pays nothing for it at
 * cold start, and each call bounded so that a slow DynamoDB cannot eat the function's time.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';

export type DynamoDbSdk = typeof import('@aws-sdk/client-dynamodb');

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
