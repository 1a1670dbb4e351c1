/**
 * The local DynamoDB of `npm start`: dynalite (DynamoDB on an in-memory LevelDB) on a free
 * loopback port, with the webhook delivery ledger's table and the usage plans' table, so that
 * every serverless-offline worker claims deliveries and counts usage in one shared store
 * through the same DynamoDB code as deployed.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  CreateTableCommand,
  type CreateTableCommandInput,
  DescribeTableCommand,
  DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import dynalite from 'dynalite';
import * as tables from '../sls/resolvers/tables.ts';

export const LOCAL_LEDGER_TABLE = 'platform-gateway-local-deliveries';
export const LOCAL_USAGE_TABLE = 'platform-gateway-local-usage';

/** dynalite on a free loopback port, tables made ACTIVE without waiting (createActiveTable). */
export async function startDynalite(): Promise<Server> {
  const server = dynalite({ createTableMs: 0, deleteTableMs: 0 });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

/**
 * Creates a table and returns once it is ACTIVE. dynalite answers CreateTable with the table
 * CREATING and makes it ACTIVE a moment later (at once, `createTableMs: 0`, but after the
 * answer); an item call in between is refused as ResourceNotFoundException, as DynamoDB refuses
 * one on a table still being created.
 */
export async function createActiveTable(
  client: Pick<DynamoDBClient, 'send'>,
  input: CreateTableCommandInput,
): Promise<void> {
  await client.send(new CreateTableCommand(input));
  for (let attempt = 0; attempt < 500; attempt++) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: input.TableName }));
    if (Table?.TableStatus === 'ACTIVE') return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`Table ${input.TableName} was not ACTIVE after 5 s`);
}

export interface LocalLedger {
  /** What the functions need: the table, its endpoint, and throwaway credentials. */
  readonly env: Record<string, string>;
  close(): Promise<void>;
}

export async function startLocalLedger(): Promise<LocalLedger> {
  const server = await startDynalite();
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // dynalite checks no signature; the SDK needs some credentials to sign with.
  const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
  const client = new DynamoDBClient({ endpoint, region: 'us-east-1', credentials });
  await createActiveTable(
    client,
    tables.createTableInput(tables.deliveryLedger, LOCAL_LEDGER_TABLE),
  );
  await createActiveTable(client, tables.createTableInput(tables.usage, LOCAL_USAGE_TABLE));
  client.destroy();
  const env: Record<string, string> = {
    DELIVERY_LEDGER_TABLE: LOCAL_LEDGER_TABLE,
    USAGE_TABLE: LOCAL_USAGE_TABLE,
    AWS_ENDPOINT_URL_DYNAMODB: endpoint,
    AWS_REGION: process.env.AWS_REGION || 'us-east-1',
  };
  // Credentials of the user's own (a SECRETS_SOURCE=aws run) are kept: dynalite takes any.
  if (!process.env.AWS_ACCESS_KEY_ID) {
    env.AWS_ACCESS_KEY_ID = credentials.accessKeyId;
    env.AWS_SECRET_ACCESS_KEY = credentials.secretAccessKey;
  }
  return {
    env,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
