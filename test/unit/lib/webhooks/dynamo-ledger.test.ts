/**
 * The delivery ledger in DynamoDB, with the real client against dynalite, held to the rules every
 * ledger keeps (test/helpers/delivery-ledger-rules.ts), and its record as the table keeps it.
 */
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamoDbDeliveryLedger } from '../../../../lib/webhooks/dynamo-ledger.ts';
import type { DeliveryLedger } from '../../../../lib/webhooks/ledger.ts';
import { createActiveTable, startDynalite } from '../../../../scripts/local-ledger.ts';
import * as tables from '../../../../sls/resolvers/tables.ts';
import { describeLedgerRules, type LedgerClock } from '../../../helpers/delivery-ledger-rules.ts';

const MINUTE = 60_000;

let dynalite: Server;
let client: DynamoDBClient;
let tableName = '';
const clock: LedgerClock = { now: 0 };

beforeAll(async () => {
  dynalite = await startDynalite();
  client = new DynamoDBClient({
    endpoint: `http://127.0.0.1:${(dynalite.address() as AddressInfo).port}`,
    region: 'us-east-1',
    credentials: { accessKeyId: 'AKIDLOOPBACKTEST', secretAccessKey: 'loopback' },
  });
});
afterAll(async () => {
  client.destroy();
  await new Promise((resolve) => dynalite.close(resolve));
});

const create = async (): Promise<DeliveryLedger> => {
  tableName = `ledger-${randomUUID()}`;
  await createActiveTable(client, tables.createTableInput(tables.deliveryLedger, tableName));
  return dynamoDbDeliveryLedger({ tableName, client, now: () => clock.now });
};

describeLedgerRules('in DynamoDB (dynalite)', clock, create);

describe('the DynamoDB ledger record', () => {
  it('carries its expiry in epoch seconds, for the table TTL', async () => {
    clock.now = 1_800_000_000_000;
    const ledger = await create();
    const claimed = await ledger.claim({
      key: 'demo:ttl',
      rememberUntilMs: clock.now + 20 * MINUTE,
      leaseUntilMs: clock.now + MINUTE,
    });
    if (claimed.outcome !== 'claimed') throw new Error('expected a claim');
    await ledger.complete('demo:ttl', claimed.token, clock.now + 30 * MINUTE);
    const item = await client.send(
      new GetItemCommand({ TableName: tableName, Key: { deliveryKey: { S: 'demo:ttl' } } }),
    );
    expect(item.Item?.expiresAt?.N).toBe(String((clock.now + 30 * MINUTE) / 1000));
    expect(item.Item?.state?.S).toBe('done');
  });
});
