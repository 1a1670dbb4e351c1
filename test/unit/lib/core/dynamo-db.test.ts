/**
 * The lazy DynamoDB client: the real SDK against dynalite (a working client, found through the
 * SDK's own endpoint variable) and against a loopback server that always fails (bounded tries).
 * The stores' conditional write (conditionalWrite): the real SDK against dynalite, and against a
 * loopback server that answers a failed condition with the item, as DynamoDB does.
 */
import { randomUUID } from 'node:crypto';
import type { Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  conditionalWrite,
  type DynamoDbTable,
  dynamoDbTable,
  lazyDynamoDb,
  readItem,
} from '../../../../lib/core/dynamo-db.ts';
import { createActiveTable, startDynalite } from '../../../../scripts/local-ledger.ts';
import * as tables from '../../../../sls/resolvers/tables.ts';
import { LOOPBACK_AWS, pointAwsSdkAt } from '../../../helpers/aws.ts';
import { type ScriptedServer, startScriptedServer } from '../../../helpers/scripted-server.ts';

let dynalite: Server;
let endpoint: string;
const restores: (() => void)[] = [];

beforeAll(async () => {
  dynalite = await startDynalite();
  endpoint = `http://127.0.0.1:${(dynalite.address() as AddressInfo).port}`;
});
afterEach(() => {
  for (const restore of restores.splice(0)) restore();
});
afterAll(async () => {
  await new Promise((resolve) => dynalite.close(resolve));
});

describe('lazyDynamoDb', () => {
  it('uses the client it is given, and loads the SDK once', async () => {
    const given = new DynamoDBClient({
      endpoint,
      region: LOOPBACK_AWS.AWS_REGION,
      credentials: { accessKeyId: 'AKIDLOOPBACKTEST', secretAccessKey: 'loopback' },
    });
    const dynamo = lazyDynamoDb(given);
    const first = await dynamo();
    const second = await dynamo();
    expect(first.client).toBe(given);
    expect(second.client).toBe(given);
    expect(second.sdk).toBe(first.sdk);
    expect(first.sdk.DynamoDBClient).toBe(DynamoDBClient);
    given.destroy();
  });

  it("makes one client on first use, configured from the environment (the SDK's endpoint variable)", async () => {
    restores.push(pointAwsSdkAt('AWS_ENDPOINT_URL_DYNAMODB', endpoint));
    const dynamo = lazyDynamoDb();
    const { sdk, client } = await dynamo();
    expect((await dynamo()).client).toBe(client);
    const tables = await client.send(new sdk.ListTablesCommand({}));
    expect(tables.TableNames).toEqual([]);
    client.destroy();
  });

  describe('against a DynamoDB that keeps failing', () => {
    let failing: ScriptedServer;
    beforeAll(async () => {
      failing = await startScriptedServer((_req, res) => {
        res.writeHead(500, { 'content-type': 'application/x-amz-json-1.0' });
        res.end('{"__type":"com.amazonaws.dynamodb.v20120810#InternalServerError","message":"x"}');
      });
    });
    afterAll(() => failing.close());

    it('gives up after three tries of a call', async () => {
      restores.push(pointAwsSdkAt('AWS_ENDPOINT_URL_DYNAMODB', failing.url.origin));
      const { client } = await lazyDynamoDb()();
      await expect(client.send(new ListTablesCommand({}))).rejects.toMatchObject({
        name: 'InternalServerError',
      });
      expect(failing.received).toHaveLength(3);
      client.destroy();
    });

    it('gives up after the tries its bounds allow', async () => {
      restores.push(pointAwsSdkAt('AWS_ENDPOINT_URL_DYNAMODB', failing.url.origin));
      failing.received.length = 0;
      const { client } = await lazyDynamoDb(undefined, {
        connectionTimeoutMs: 1000,
        requestTimeoutMs: 3000,
        maxAttempts: 1,
        maxSockets: 200,
      })();
      await expect(client.send(new ListTablesCommand({}))).rejects.toMatchObject({
        name: 'InternalServerError',
      });
      expect(failing.received).toHaveLength(1);
      client.destroy();
    });
  });
});

describe('conditionalWrite', () => {
  const loopbackClient = (url: string) =>
    new DynamoDBClient({
      endpoint: url,
      region: LOOPBACK_AWS.AWS_REGION,
      credentials: { accessKeyId: 'AKIDLOOPBACKTEST', secretAccessKey: 'loopback' },
      maxAttempts: 1,
    });
  const key = { deliveryKey: { S: 'k-1' } };
  /** Sets `n` to `:n` while it is absent or below it. */
  const raiseTo = (n: number) => ({
    key,
    update: 'SET n = :n',
    condition: 'attribute_not_exists(n) OR n < :n',
    values: { ':n': { N: String(n) } },
  });

  describe('on dynalite', () => {
    let client: DynamoDBClient;
    let table: DynamoDbTable;
    beforeAll(() => {
      client = loopbackClient(endpoint);
    });
    afterAll(() => client.destroy());
    beforeEach(async () => {
      const name = `table-${randomUUID()}`;
      await createActiveTable(client, tables.createTableInput(tables.deliveryLedger, name));
      table = dynamoDbTable(name, client);
    });

    it('applies an update whose condition holds, and tells one whose condition failed', async () => {
      expect(await conditionalWrite(table, raiseTo(2))).toEqual({ applied: true, item: undefined });
      expect(await conditionalWrite(table, raiseTo(1))).toEqual({
        applied: false,
        item: undefined,
      });
      expect(await readItem(table, key)).toEqual({ ...key, n: { N: '2' } });
    });

    it('returns the item as it was, or as it is now, when asked', async () => {
      expect(await conditionalWrite(table, { ...raiseTo(1), returns: 'old' })).toEqual({
        applied: true,
        item: {},
      });
      expect(await conditionalWrite(table, { ...raiseTo(2), returns: 'old' })).toEqual({
        applied: true,
        item: { ...key, n: { N: '1' } },
      });
      expect(await conditionalWrite(table, { ...raiseTo(3), returns: 'new' })).toEqual({
        applied: true,
        item: { ...key, n: { N: '3' } },
      });
    });

    it('reads the item that failed a condition where the store does not return it', async () => {
      await conditionalWrite(table, raiseTo(5));
      expect(await conditionalWrite(table, { ...raiseTo(4), failedItem: true })).toEqual({
        applied: false,
        item: { ...key, n: { N: '5' } },
      });
    });

    it('applies a write without a condition', async () => {
      expect(
        await conditionalWrite(table, { key, update: 'SET m = :m', values: { ':m': { S: 'x' } } }),
      ).toEqual({ applied: true, item: undefined });
      expect(await conditionalWrite(table, { key, delete: true })).toEqual({
        applied: true,
        item: undefined,
      });
      expect(await readItem(table, key)).toBeUndefined();
    });

    it('deletes an item only while its condition holds', async () => {
      await conditionalWrite(table, raiseTo(2));
      const unless = (n: number) => ({
        key,
        delete: true as const,
        condition: 'n = :n',
        values: { ':n': { N: String(n) } },
        failedItem: true,
      });
      expect(await conditionalWrite(table, unless(1))).toEqual({
        applied: false,
        item: { ...key, n: { N: '2' } },
      });
      expect(await conditionalWrite(table, unless(2))).toEqual({ applied: true, item: undefined });
      expect(await readItem(table, key)).toBeUndefined();
    });
  });

  describe('against a DynamoDB that answers', () => {
    let server: ScriptedServer;
    let client: DynamoDBClient;
    beforeAll(async () => {
      server = await startScriptedServer();
      client = loopbackClient(server.url.origin);
    });
    afterAll(async () => {
      client.destroy();
      await server.close();
    });
    beforeEach(() => {
      server.received.length = 0;
    });
    const answer = (status: number, body: object) => (_req: unknown, res: ServerResponse) => {
      res.writeHead(status, { 'content-type': 'application/x-amz-json-1.0' });
      res.end(JSON.stringify(body));
    };

    it('takes the item a failed condition returns, without reading it again', async () => {
      server.script = answer(400, {
        __type: 'com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException',
        message: 'The conditional request failed',
        Item: { deliveryKey: { S: 'k-1' }, n: { N: '9' } },
      });
      const table = dynamoDbTable('t', client);
      expect(await conditionalWrite(table, { ...raiseTo(1), failedItem: true })).toEqual({
        applied: false,
        item: { deliveryKey: { S: 'k-1' }, n: { N: '9' } },
      });
      expect(server.received).toHaveLength(1);
      const sent = JSON.parse(server.received[0]?.body.toString() ?? '{}');
      expect(sent).toMatchObject({
        TableName: 't',
        Key: key,
        ConditionExpression: 'attribute_not_exists(n) OR n < :n',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      });
    });

    it('throws any other failure', async () => {
      server.script = answer(400, {
        __type: 'com.amazonaws.dynamodb.v20120810#ResourceNotFoundException',
        message: 'Requested resource not found',
      });
      const table = dynamoDbTable('t', client);
      await expect(conditionalWrite(table, raiseTo(1))).rejects.toMatchObject({
        name: 'ResourceNotFoundException',
      });
      await expect(conditionalWrite(table, { key, delete: true })).rejects.toMatchObject({
        name: 'ResourceNotFoundException',
      });
    });
  });
});
