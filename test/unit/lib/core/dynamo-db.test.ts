/**
 * The lazy DynamoDB client: the real SDK against dynalite (a working client, found through the
 * SDK's own endpoint variable) and against a loopback server that always fails (bounded tries).
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { lazyDynamoDb } from '../../../../lib/core/dynamo-db.js';
import { startDynalite } from '../../../../scripts/local-ledger.js';
import { LOOPBACK_AWS, pointAwsSdkAt } from '../../../helpers/aws.js';
import { type ScriptedServer, startScriptedServer } from '../../../helpers/scripted-server.js';

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
