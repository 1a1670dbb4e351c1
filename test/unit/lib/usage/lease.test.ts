/**
 * One long-running request of a caller at a time: the rules every lease store keeps (memory,
 * and DynamoDB on dynalite, whose conditional writes are atomic as DynamoDB's are), one lease
 * granted of many asked for at once across containers, and the lease held in memory while the
 * store fails, under either policy.
 */
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../../lib/core/config.ts';
import { ThrottleLimitedError } from '../../../../lib/core/errors.ts';
import { createLogger } from '../../../../lib/core/log.ts';
import { createRuntime } from '../../../../lib/runtime.ts';
import { UsageGate } from '../../../../lib/usage/gate.ts';
import {
  dynamoDbLeaseStore,
  type LeaseStore,
  leasesIn,
  leasesOf,
  memoryLeaseStore,
} from '../../../../lib/usage/lease.ts';
import { memoryUsageStore } from '../../../../lib/usage/store.ts';
import { createActiveTable, startDynalite } from '../../../../scripts/local-ledger.ts';
import * as tables from '../../../../sls/resolvers/tables.ts';
import { recorder } from '../../../helpers/usage-spies.ts';
import { T0 } from '../../../helpers/usage-store-rules.ts';

const lines: string[] = [];
const log = createLogger({}, (line) => lines.push(line));
const clock = { now: T0 };
const gate = (policy: 'open' | 'closed' = 'closed') =>
  new UsageGate({ store: memoryUsageStore(), onStoreFailure: policy, log, now: () => clock.now });

let dynalite: Server;
const clients: DynamoDBClient[] = [];
async function dynamoStores(count: number): Promise<LeaseStore[]> {
  const endpoint = `http://127.0.0.1:${(dynalite.address() as AddressInfo).port}`;
  const client = () => {
    const made = new DynamoDBClient({
      endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'AKIDLOOPBACKTEST', secretAccessKey: 'loopback' },
    });
    clients.push(made);
    return made;
  };
  const tableName = `leases-${randomUUID()}`;
  await createActiveTable(client(), tables.createTableInput(tables.usage, tableName));
  return Array.from({ length: count }, () => dynamoDbLeaseStore({ tableName, client: client() }));
}

beforeAll(async () => {
  dynalite = await startDynalite();
});
afterAll(async () => {
  for (const client of clients) client.destroy();
  await new Promise((resolve) => dynalite.close(resolve));
});

describe.each([
  ['in memory', async () => memoryLeaseStore()],
  ['in DynamoDB (dynalite)', async () => (await dynamoStores(1))[0]!],
])('leases %s', (_, create) => {
  it('holds a caller to one lease at a time, until released or lapsed', async () => {
    clock.now = T0;
    const acquire = leasesIn(await create(), gate());
    const release = await acquire('reporting', 25_000);
    const error = await acquire('reporting', 25_000).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ThrottleLimitedError);
    expect(error).toMatchObject({ status: 429, code: '410', message: 'Throttle Limited' });
    expect((error as ThrottleLimitedError).headers['Retry-After']).toBe('25');
    // Another caller's lease is its own.
    const other = await acquire('chatbot', 25_000);
    await release();
    const again = await acquire('reporting', 25_000);
    clock.now = T0 + 25_000;
    // Lapsed (its holder stopped): taken over; the old holder's release frees nothing.
    const takeover = await acquire('reporting', 25_000);
    await again();
    await expect(acquire('reporting', 1000)).rejects.toBeInstanceOf(ThrottleLimitedError);
    await takeover();
    await other();
  });
});

describe('leases', () => {
  it('grants one lease of 30 asked for at once across containers', {
    timeout: 60_000,
  }, async () => {
    clock.now = T0;
    const stores = await dynamoStores(6);
    const results = await Promise.allSettled(
      Array.from({ length: 30 }, (_, i) => leasesIn(stores[i % 6]!, gate())('bulk', 25_000)),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(refused.every((r) => (r.reason as { code?: string }).code === '410')).toBe(true);
  });

  it('refuses with no call to the store a lease the container holds itself, until released', async () => {
    clock.now = T0;
    const shared = memoryLeaseStore();
    const calls: string[] = [];
    const counted: LeaseStore = {
      acquire: (...args) => {
        calls.push('acquire');
        return shared.acquire(...args);
      },
      release: (...args) => {
        calls.push('release');
        return shared.release(...args);
      },
    };
    const [first, second] = [leasesIn(counted, gate()), leasesIn(counted, gate())];
    const release = await first('a', 25_000);
    for (let i = 0; i < 3; i++) {
      await expect(first('a', 25_000)).rejects.toMatchObject({ code: '410' });
    }
    // One call to take it; another container, which does not hold it, asks the store.
    await expect(second('a', 25_000)).rejects.toMatchObject({ code: '410' });
    expect(calls).toEqual(['acquire', 'acquire']);
    await release();
    // Released, it is asked for again.
    await (await first('a', 25_000))();
    expect(calls).toEqual(['acquire', 'acquire', 'release', 'acquire', 'release']);
  });

  it.each(['open', 'closed'] as const)(
    "holds a lease in the container's memory while the store fails, %s",
    async (policy) => {
      const failing: LeaseStore = {
        acquire: async () => {
          throw new Error('connect ECONNREFUSED');
        },
        release: async () => {},
      };
      const acquire = leasesIn(failing, gate(policy));
      const { metrics, counted } = recorder();
      const release = await acquire('a', 1000, { metrics });
      expect(counted).toEqual([['UsageStoreFailures', { Policy: policy }, undefined]]);
      await expect(acquire('a', 1000)).rejects.toMatchObject({ status: 429, code: '410' });
      await release();
      await (await acquire('a', 1000))();
    },
  );

  it('lets a lease lapse at its end when it cannot be released, with a warning', async () => {
    const stuck: LeaseStore = {
      acquire: async () => undefined,
      release: async () => {
        throw new Error('throttled');
      },
    };
    lines.length = 0;
    await (await leasesIn(stuck, gate())('a', 1000))();
    expect(lines.join('\n')).toContain('lease not released');
  });

  it("keeps the container's leases in the usage table when deployed, in memory locally", () => {
    const local = createRuntime(loadConfig({}), { log });
    expect(leasesOf(local)).toBe(leasesOf(local));
    const deployed = {
      AWS_LAMBDA_FUNCTION_NAME: 'platform-gateway-dev-cancelReservedJobs',
      SECRETS_SOURCE: 'file',
      SECRETS_FILE: 'emulator/demo-secret.json',
    };
    expect(() => leasesOf(createRuntime(loadConfig(deployed), { log }))).toThrow('USAGE_TABLE');
  });
});
