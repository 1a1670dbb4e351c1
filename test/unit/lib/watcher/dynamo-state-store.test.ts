/**
 * The DynamoDB store with the real DynamoDB client against dynalite (a DynamoDB
 * implementation on LevelDB, in memory) on loopback.
 */
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { dynamoDbStateStore } from '../../../../lib/watcher/dynamo-state-store.ts';
import { createActiveTable, startDynalite } from '../../../../scripts/local-ledger.ts';
import * as tables from '../../../../sls/resolvers/tables.ts';
import { change, observed } from './fixtures.ts';

describe('dynamoDbStateStore against dynalite', () => {
  let server: Server;
  let client: DynamoDBClient;
  let tableName: string;
  let now: number;
  const storeFor = () => dynamoDbStateStore({ tableName, client, now: () => now });
  const lease = (token: string, expiresAt = now + 60_000) => ({ token, expiresAt });

  beforeAll(async () => {
    server = await startDynalite();
    client = new DynamoDBClient({
      endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      region: 'us-east-1',
      credentials: { accessKeyId: 'AKIDLOOPBACKTEST', secretAccessKey: 'loopback' },
    });
  });
  afterAll(async () => {
    client.destroy();
    await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(async () => {
    now = 1_000_000;
    tableName = `watcher-${randomUUID()}`;
    await createActiveTable(client, tables.createTableInput(tables.watcherState, tableName));
  });

  it('records a baseline as one item per job and loads it back', async () => {
    const store = storeFor();
    expect((await store.load()).jobs.size).toBe(0);
    await store.baseline([observed('1', 'Complete'), observed('2', 'Progress')], 'T1');
    expect((await storeFor().load()).jobs).toEqual(
      new Map([
        ['1', { status: 'Complete', updatedAt: 'T1' }],
        ['2', { status: 'Progress', updatedAt: 'T1' }],
      ]),
    );
    const items = await client.send(new ScanCommand({ TableName: tableName }));
    expect(items.Items).toContainEqual({
      instanceNo: { S: '1' },
      status: { S: 'Complete' },
      updatedAt: { S: 'T1' },
    });
  });

  it('lets only one of two overlapping runs claim a change', async () => {
    const store = storeFor();
    await store.baseline([observed('1', 'Progress')], 'T1');
    const changes = [change('1', 'Progress', 'Complete'), change('2', null, 'Reservation')];
    const [a, b] = await Promise.all([
      store.claim(changes, lease('run-a')),
      store.claim(changes, lease('run-b')),
    ]);
    expect([...a!, ...b!].map((c) => c.job.instanceNo).sort()).toEqual(['1', '2']);
  });

  it('records a claimed change for the claiming run only, and then refuses a stale claim', async () => {
    const store = storeFor();
    await store.baseline([observed('1', 'Progress')], 'T1');
    const done = change('1', 'Progress', 'Complete');
    expect(await store.claim([done], lease('run-a'))).toEqual([done]);
    await store.record([done], lease('run-b'), 'T2'); // not its claim: nothing changes
    expect((await store.load()).jobs.get('1')?.status).toBe('Progress');
    await store.record([done], lease('run-a'), 'T2');
    expect((await store.load()).jobs.get('1')).toEqual({ status: 'Complete', updatedAt: 'T2' });
    // A run that still believes the job is in progress can no longer claim the change.
    expect(await store.claim([done], lease('run-c'))).toEqual([]);
    const item = (await client.send(new ScanCommand({ TableName: tableName }))).Items?.[0];
    expect(Object.keys(item ?? {}).sort()).toEqual(['instanceNo', 'status', 'updatedAt']);
  });

  it('lets a claim lapse at the run deadline, and frees a released claim at once', async () => {
    const store = storeFor();
    await store.baseline([observed('1', 'Progress'), observed('2', 'Progress')], 'T1');
    const one = change('1', 'Progress', 'Stop');
    const two = change('2', 'Progress', 'Complete');
    await store.claim([one, two], lease('dead-run', now + 5_000));
    await store.release([two], lease('dead-run'));
    expect(await store.claim([one, two], lease('next-run'))).toEqual([two]);
    now += 5_001;
    expect(await store.claim([one], lease('later-run'))).toEqual([one]);
  });

  it('treats a claimed but never recorded new job as not yet seen', async () => {
    const store = storeFor();
    await store.baseline([observed('1', 'Complete')], 'T1');
    const fresh = change('2', null, 'Reservation');
    await store.claim([fresh], lease('run-a'));
    await store.release([fresh], lease('run-a'));
    expect([...(await store.load()).jobs.keys()]).toEqual(['1']);
    expect(await store.claim([fresh], lease('run-b'))).toEqual([fresh]);
  });

  it('writes a baseline of many jobs in batches of 25, and loads them back in one Scan', async () => {
    const store = storeFor();
    const jobs = Array.from({ length: 260 }, (_, i) => observed(String(5000 + i), 'Complete'));
    await store.baseline(jobs, 'T1');
    expect(store.calls).toEqual({ reads: 0, writes: 11 });
    const loaded = await store.load();
    expect(loaded.jobs.size).toBe(260);
    expect(store.calls).toEqual({ reads: 1, writes: 11 });
  });

  it('keeps a cursor beside the jobs, never taken for one, until it is forgotten', async () => {
    const store = storeFor();
    await store.baseline([observed('1', 'Complete')], 'T1');
    await store.saveCursor({ nextPage: 4, pageSize: 100, baselining: true });
    const loaded = await storeFor().load();
    expect(loaded.cursor).toEqual({ nextPage: 4, pageSize: 100, baselining: true });
    expect([...loaded.jobs.keys()]).toEqual(['1']);
    await store.saveCursor(undefined);
    expect((await storeFor().load()).cursor).toBeUndefined();
  });
});
