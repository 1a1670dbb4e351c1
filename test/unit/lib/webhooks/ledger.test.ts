/**
 * The delivery ledger: the in-memory one, and the DynamoDB one with the real client against
 * dynalite, held to the same rules.
 */
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CreateTableCommand, DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ACCEPTANCE_WINDOW_MS,
  DEFAULT_MEMORY_MS,
  type DeliveryLedger,
  dynamoDbDeliveryLedger,
  memoryDeliveryLedger,
  rememberUntil,
} from '../../../../lib/webhooks/ledger.js';
import { startDynalite } from '../../../../scripts/local-ledger.js';
import tables from '../../../../scripts/sls/tables.cjs';
import { describeLedgerRules, type LedgerClock } from '../../../helpers/delivery-ledger-rules.js';

const MINUTE = 60_000;

describe('rememberUntil', () => {
  it('keeps a key for the memory after the last moment a copy can arrive', () => {
    const now = 1_000_000_000_000;
    // Stamped 290 s in the future: a copy may still arrive until t + 5 min.
    expect(rememberUntil(now + 290_000, now)).toBe(
      now + 290_000 + ACCEPTANCE_WINDOW_MS + DEFAULT_MEMORY_MS,
    );
    // Stamped long ago (an old message redelivered, a sender retrying for days): from now.
    expect(rememberUntil(now - 60 * MINUTE, now)).toBe(now + DEFAULT_MEMORY_MS);
    expect(DEFAULT_MEMORY_MS).toBe(4 * 24 * 60 * MINUTE);
    expect(rememberUntil(now, now, MINUTE)).toBe(now + ACCEPTANCE_WINDOW_MS + MINUTE);
  });
});

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

const implementations: [string, () => Promise<DeliveryLedger>][] = [
  ['in memory', async () => memoryDeliveryLedger(() => clock.now)],
  [
    'in DynamoDB (dynalite)',
    async () => {
      tableName = `ledger-${randomUUID()}`;
      await client.send(
        new CreateTableCommand(tables.createTableInput(tables.deliveryLedger, tableName)),
      );
      return dynamoDbDeliveryLedger({ tableName, client, now: () => clock.now });
    },
  ],
];

for (const [name, create] of implementations) describeLedgerRules(name, clock, create);

describe('the DynamoDB ledger record', () => {
  it('carries its expiry in epoch seconds, for the table TTL', async () => {
    clock.now = 1_800_000_000_000;
    const [, create] = implementations[1]!;
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
