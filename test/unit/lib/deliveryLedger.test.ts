/**
 * The delivery ledger: the in-memory one, and the DynamoDB one with the real client against
 * dynalite, held to the same rules.
 */
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CreateTableCommand, DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  ACCEPTANCE_WINDOW_MS,
  type DeliveryLedger,
  dynamoDbDeliveryLedger,
  memoryDeliveryLedger,
  REMEMBER_MARGIN_MS,
  rememberUntil,
} from '../../../lib/deliveryLedger.js';
import { startDynalite } from '../../../scripts/local-ledger.js';

const MINUTE = 60_000;

describe('rememberUntil', () => {
  it('covers the acceptance window after the timestamp, and a margin after now', () => {
    const now = 1_000_000_000_000;
    // Stamped 290 s in the future: a copy may still arrive until t + 5 min.
    expect(rememberUntil(now + 290_000, now)).toBe(
      now + 290_000 + ACCEPTANCE_WINDOW_MS + REMEMBER_MARGIN_MS,
    );
    // Stamped long ago (an old message redelivered): still the margin from now.
    expect(rememberUntil(now - 60 * MINUTE, now)).toBe(now + REMEMBER_MARGIN_MS);
  });
});

let dynalite: Server;
let client: DynamoDBClient;
let tableName = '';
let now = 0;

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
  ['in memory', async () => memoryDeliveryLedger(() => now)],
  [
    'in DynamoDB (dynalite)',
    async () => {
      tableName = `ledger-${randomUUID()}`;
      await client.send(
        new CreateTableCommand({
          TableName: tableName,
          BillingMode: 'PAY_PER_REQUEST',
          AttributeDefinitions: [{ AttributeName: 'deliveryKey', AttributeType: 'S' }],
          KeySchema: [{ AttributeName: 'deliveryKey', KeyType: 'HASH' }],
        }),
      );
      return dynamoDbDeliveryLedger({ tableName, client, now: () => now });
    },
  ],
];

describe.each(implementations)('the delivery ledger %s', (_name, create) => {
  let ledger: DeliveryLedger;
  const claim = (key = 'demo:msg_1', lease = 2 * MINUTE, keep = 20 * MINUTE) =>
    ledger.claim({ key, rememberUntilMs: now + keep, leaseUntilMs: now + lease });

  beforeEach(async () => {
    now = 1_800_000_000_000;
    ledger = await create();
  });

  it('lets one claim win; a completed key is a duplicate, a running one is busy', async () => {
    const first = await claim();
    expect(first.outcome).toBe('claimed');
    expect((await claim()).outcome).toBe('running');
    expect((await claim('demo:other')).outcome).toBe('claimed');
    if (first.outcome !== 'claimed') throw new Error('unreachable');
    await ledger.complete('demo:msg_1', first.token, now + 20 * MINUTE);
    expect((await claim()).outcome).toBe('done');
  });

  it('lets exactly one of many concurrent claims win', async () => {
    const results = await Promise.all(Array.from({ length: 20 }, () => claim()));
    expect(results.filter((r) => r.outcome === 'claimed')).toHaveLength(1);
  });

  it('forgets a released claim, so that a retry runs the delivery', async () => {
    const first = await claim();
    if (first.outcome !== 'claimed') throw new Error('expected a claim');
    await ledger.release('demo:msg_1', first.token);
    expect((await claim()).outcome).toBe('claimed');
  });

  it("ignores complete and release with another claim's token", async () => {
    const first = await claim();
    if (first.outcome !== 'claimed') throw new Error('expected a claim');
    await ledger.release('demo:msg_1', 'not-the-token');
    await ledger.complete('demo:msg_1', 'not-the-token', now + MINUTE);
    expect((await claim()).outcome).toBe('running');
  });

  it('takes over a running claim whose lease lapsed (its consumer died)', async () => {
    expect((await claim()).outcome).toBe('claimed');
    now += 2 * MINUTE + 1;
    expect((await claim()).outcome).toBe('claimed');
  });

  it('treats a record past its expiry as absent, before any TTL deletion', async () => {
    const first = await claim('demo:msg_1', MINUTE, 20 * MINUTE);
    if (first.outcome !== 'claimed') throw new Error('expected a claim');
    await ledger.complete('demo:msg_1', first.token, now + 20 * MINUTE);
    now += 20 * MINUTE - 1000;
    expect((await claim()).outcome).toBe('done');
    now += 2000;
    expect((await claim()).outcome).toBe('claimed');
  });
});

describe('the DynamoDB ledger record', () => {
  it('carries its expiry in epoch seconds, for the table TTL', async () => {
    now = 1_800_000_000_000;
    const [, create] = implementations[1]!;
    const ledger = await create();
    const claimed = await ledger.claim({
      key: 'demo:ttl',
      rememberUntilMs: now + 20 * MINUTE,
      leaseUntilMs: now + MINUTE,
    });
    if (claimed.outcome !== 'claimed') throw new Error('expected a claim');
    await ledger.complete('demo:ttl', claimed.token, now + 30 * MINUTE);
    const item = await client.send(
      new GetItemCommand({ TableName: tableName, Key: { deliveryKey: { S: 'demo:ttl' } } }),
    );
    expect(item.Item?.expiresAt?.N).toBe(String((now + 30 * MINUTE) / 1000));
    expect(item.Item?.state?.S).toBe('done');
  });
});
