/**
 * The DynamoDB usage store with the real client against dynalite, whose conditional writes are
 * atomic per item as DynamoDB's are: the rules every store keeps, then what counts under
 * concurrency across containers (several store instances over one table), how the account's
 * writes spread over its shards, the store calls an admission costs, and the failure policy
 * with the store down.
 */
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageStoreUnavailableError } from '../../../../lib/core/errors.ts';
import { createLogger } from '../../../../lib/core/log.ts';
import { admit } from '../../../../lib/usage/admission.ts';
import { dynamoDbUsageStore } from '../../../../lib/usage/dynamo-usage-store.ts';
import { type MetricRecorder, UsageGate } from '../../../../lib/usage/gate.ts';
import { NO_COUNTS, rulesOf } from '../../../../lib/usage/plan.ts';
import { usageReport } from '../../../../lib/usage/report.ts';
import type { TakeResult, UsageStore } from '../../../../lib/usage/store.ts';
import { ONE_REQUEST } from '../../../../lib/usage/units.ts';
import { windowsOf } from '../../../../lib/usage/windows.ts';
import { createActiveTable, startDynalite } from '../../../../scripts/local-ledger.ts';
import * as tables from '../../../../sls/resolvers/tables.ts';
import {
  admitted,
  describeUsageStoreRules,
  refusal,
  T0,
  type UsageClock,
} from '../../../helpers/usage-store-rules.ts';

let dynalite: Server;
let endpoint = '';
const credentials = { accessKeyId: 'AKIDLOOPBACKTEST', secretAccessKey: 'loopback' };
const clients: DynamoDBClient[] = [];
const clock: UsageClock = { now: 0 };
const silent = createLogger({}, () => {});
const ONE = { ...NO_COUNTS, requests: 1 };

/** A client of its own, as each container has; `calls` counts what it sends. */
function newClient(): DynamoDBClient & { calls: string[] } {
  const client = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials,
  }) as DynamoDBClient & {
    calls: string[];
  };
  client.calls = [];
  client.middlewareStack.add(
    (next, context) => (args) => {
      client.calls.push(context.commandName ?? '?');
      return next(args);
    },
    { step: 'initialize', name: 'countCalls' },
  );
  clients.push(client);
  return client;
}

async function newTable(): Promise<string> {
  const tableName = `usage-${randomUUID()}`;
  const client = newClient();
  await createActiveTable(client, tables.createTableInput(tables.usage, tableName));
  return tableName;
}

beforeAll(async () => {
  dynalite = await startDynalite();
  endpoint = `http://127.0.0.1:${(dynalite.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const client of clients) client.destroy();
  await new Promise((resolve) => dynalite.close(resolve));
});

describeUsageStoreRules('in DynamoDB (dynalite)', clock, async () => {
  const tableName = await newTable();
  return () => dynamoDbUsageStore({ tableName, client: newClient() });
});

/**
 * `count` gates over one table, each with a store and a client of its own (a container each).
 * A container that lost a token holds off no longer than the token takes (`random` 0), so that
 * each wave's admissions are exact at its instant; `holds` gives the hold its full length.
 */
async function containers(count: number, onStoreFailure: 'open' | 'closed' = 'closed', holds = 0) {
  const tableName = await newTable();
  return Array.from({ length: count }, () => {
    const client = newClient();
    const store = dynamoDbUsageStore({ tableName, client, random: () => holds });
    return {
      client,
      store,
      gate: new UsageGate({ store, onStoreFailure, log: silent, now: () => clock.now }),
    };
  });
}

/**
 * What counts under concurrency: hundreds of conditional writes through one dynalite, whose time
 * is this machine's (on two busy cores, a call can take tens of milliseconds). The limit is
 * there to catch a hang, not to time anything.
 */
describe('the DynamoDB usage store under concurrency', { timeout: 120_000 }, () => {
  it('admits exactly 50 of 200 requests at once against a day quota of 50, across 8 containers', async () => {
    clock.now = T0;
    const gates = await containers(8);
    const plans = { plan: { dayQuotaRequest: 50 }, accountPlan: undefined };
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        admit(gates[i % gates.length]!.gate, { callerId: 'reporting', plans, units: ONE_REQUEST }),
      ),
    );
    expect(results.filter((r) => r.admitted)).toHaveLength(50);
    expect(results.filter((r) => !r.admitted).map((r) => refusal(r).code)).toEqual(
      Array(150).fill('400'),
    );
    const usage = await usageReport(gates[0]!.gate, 'reporting', plans);
    expect(usage.caller.day).toMatchObject({ requests: 50, remaining: { requests: 0 } });
  });

  it('admits exactly 50 of 120 against an account quota of 50, callers of several containers together', async () => {
    clock.now = T0;
    const gates = await containers(4);
    const accountPlan = { dayQuotaRequest: 50 };
    const results = await Promise.all(
      Array.from({ length: 120 }, (_, i) =>
        admit(gates[i % gates.length]!.gate, {
          callerId: `caller-${i % 7}`,
          plans: { plan: i % 2 === 0 ? { monthQuotaRequest: 1000 } : undefined, accountPlan },
          units: ONE_REQUEST,
        }),
      ),
    );
    expect(results.filter((r) => r.admitted)).toHaveLength(50);
    // The callers' own counts hold only what the account admitted too.
    let counted = 0;
    for (let caller = 0; caller < 7; caller++) {
      const usage = await usageReport(gates[0]!.gate, `caller-${caller}`, {
        plan: { monthQuotaRequest: 1000 },
        accountPlan,
      });
      counted += usage.caller.month.requests;
    }
    const admittedWithPlan = results.filter((r, i) => r.admitted && i % 2 === 0).length;
    expect(counted).toBe(admittedWithPlan);
  });

  it('holds a token bucket exactly: 60 requests at one instant admit the burst, then one per interval', async () => {
    clock.now = T0;
    const gates = await containers(5);
    const plans = { plan: { rateRps: 10, burst: 20 }, accountPlan: undefined };
    const wave = async (size: number) => {
      const results = await Promise.all(
        Array.from({ length: size }, (_, i) =>
          admit(gates[i % gates.length]!.gate, { callerId: 'bot', plans, units: ONE_REQUEST }),
        ),
      );
      return results.filter((r) => r.admitted).length;
    };
    expect(await wave(60)).toBe(20);
    clock.now = T0 + 350; // three and a half intervals of 100 ms
    expect(await wave(20)).toBe(3);
    clock.now = T0 + 400;
    expect(await wave(20)).toBe(1);
    clock.now = T0 + 10_000; // full again, never above the burst
    expect(await wave(40)).toBe(20);
  });

  it('holds off a container that lost a token to another, the longer the more losses in a row', async () => {
    const stores = (await containers(4, 'closed', 1)).map(({ store, client }) => ({
      store,
      client,
    }));
    const rules = rulesOf({ rateRps: 10, burst: 1 });
    const wave = (nowMs: number) =>
      Promise.all(
        stores.map(({ store }) =>
          store.take('caller#flood', { nowMs, windows: windowsOf(nowMs), counts: ONE, rules }),
        ),
      );
    const waits = (results: TakeResult[]) =>
      results.map((r) => (r.taken ? 'taken' : Math.round(r.refusal.retryAfterMs)));
    const callsOf = () => stores.map(({ client }) => client.calls.length);
    // One token, four containers writing for it: one takes it; the three that lost it wait for
    // the next token (100 ms) and as long again (their first loss in a row).
    const first = waits(await wave(T0));
    const winner = first.indexOf('taken');
    expect(first.map((w, i) => (i === winner ? w : w === 200))).toEqual(
      stores.map((_, i) => (i === winner ? 'taken' : true)),
    );
    // The next token: only the winner writes for it, and takes it.
    const before = callsOf();
    const second = waits(await wave(T0 + 100));
    expect(second[winner]).toBe('taken');
    expect(callsOf().map((n, i) => n - before[i]!)).toEqual(
      stores.map((_, i) => (i === winner ? 1 : 0)),
    );
    // Past their hold, the losers write again (the winner has the token); losing once more,
    // they hold off twice as long.
    const third = waits(await wave(T0 + 200));
    expect(third.filter((w) => w === 'taken')).toHaveLength(1);
    expect(third.filter((w) => w === 300).length).toBeGreaterThanOrEqual(2);
  });

  it("counts what no limit refuses on an item whose bucket a container holds off (a hand-off's size)", async () => {
    const stores = (await containers(2, 'closed', 1)).map(({ store }) => store);
    const rules = rulesOf({ rateRps: 10, burst: 1 });
    const at = { nowMs: T0, windows: windowsOf(T0) };
    const results = await Promise.all(
      stores.map((store) => store.take('caller#held', { ...at, counts: ONE, rules })),
    );
    const loser = stores[results.findIndex((result) => !result.taken)]!;
    // The loser holds the bucket off for a while; a count holds to no bucket.
    const none = { rate: undefined, day: {}, month: {} };
    const counted = await loser.take('caller#held', { ...at, counts: ONE, rules: none });
    expect(counted.taken).toBe(true);
    expect((await loser.read('caller#held'))?.dayCounts.requests).toBe(2);
  });

  it('starts the day afresh once, however many containers open it at once', async () => {
    clock.now = T0;
    const gates = await containers(6);
    const plans = { plan: { dayQuotaRequest: 10 }, accountPlan: undefined };
    const wave = async () =>
      (
        await Promise.all(
          Array.from({ length: 40 }, (_, i) =>
            admit(gates[i % gates.length]!.gate, { callerId: 'r', plans, units: ONE_REQUEST }),
          ),
        )
      ).filter((r) => r.admitted).length;
    expect(await wave()).toBe(10);
    clock.now = T0 + 14 * 3_600_000; // 2026-11-26T00:00Z
    expect(await wave()).toBe(10);
  });

  it("spreads the account's writes over its shards: no item takes more than its share", async () => {
    clock.now = T0;
    const gates = await containers(8);
    // Every write a container sends, by the item it writes.
    const writesByItem = new Map<string, number>();
    for (const { client } of gates) {
      client.middlewareStack.add(
        (next, context) => async (args) => {
          const input = args.input as { Key?: { usageKey?: { S?: string } } };
          const key = input.Key?.usageKey?.S ?? '?';
          if (context.commandName !== 'UpdateItemCommand') return next(args);
          writesByItem.set(key, (writesByItem.get(key) ?? 0) + 1);
          return next(args);
        },
        { step: 'initialize', name: 'countByItem' },
      );
    }
    const plans = { plan: undefined, accountPlan: { dayQuotaRequest: 1_000_000 } };
    const results = await Promise.all(
      Array.from({ length: 400 }, (_, i) =>
        admit(gates[i % gates.length]!.gate, {
          callerId: `caller-${i % 13}`,
          plans,
          units: ONE_REQUEST,
        }),
      ),
    );
    expect(results.every((r) => r.admitted)).toBe(true);
    expect([...writesByItem.keys()].sort()).toEqual(
      Array.from({ length: 8 }, (_, i) => `account#${i}`).sort(),
    );
    // A shard's share is 50 of 400; chance alone takes one past 100 less than once in 10^9.
    expect(Math.max(...writesByItem.values())).toBeLessThan(100);
    const usage = await usageReport(gates[0]!.gate, 'any', plans);
    expect(usage.account?.day.requests).toBe(400);
  });
});

async function oneContainer() {
  const [container] = await containers(1);
  if (!container) throw new Error('no container');
  return container;
}

describe('what an admission costs the store', () => {
  it('costs one call in the steady state for rate, day and month together', async () => {
    clock.now = T0;
    const { gate, client } = await oneContainer();
    const plans = {
      plan: { rateRps: 100, burst: 100, dayQuotaRequest: 10_000, monthQuotaRequest: 100_000 },
      accountPlan: undefined,
    };
    admitted(await admit(gate, { callerId: 'steady', plans, units: ONE_REQUEST }));
    client.calls.length = 0;
    for (let i = 0; i < 50; i++) {
      clock.now += 7; // a request every 7 ms: the bucket runs, the windows stay
      admitted(await admit(gate, { callerId: 'steady', plans, units: ONE_REQUEST }));
    }
    expect(client.calls).toEqual(Array(50).fill('UpdateItemCommand'));
  });

  it('sends at most 4 writes of one item at once from a container: the others wait their turn', async () => {
    clock.now = T0;
    const { client, gate } = (await containers(1))[0]!;
    let inFlight = 0;
    let most = 0;
    client.middlewareStack.add(
      (next) => async (args) => {
        most = Math.max(most, ++inFlight);
        try {
          return await next(args);
        } finally {
          inFlight--;
        }
      },
      { step: 'initialize', name: 'countInFlight' },
    );
    // A rate of 100 a second keeps the caller on one item.
    const plans = { plan: { rateRps: 100, dayQuotaRequest: 30 }, accountPlan: undefined };
    const ask = () => admit(gate, { callerId: 'reporting', plans, units: ONE_REQUEST });
    await ask();
    const results = await Promise.all(Array.from({ length: 20 }, ask));
    expect(results.filter((r) => r.admitted)).toHaveLength(20);
    expect(most).toBe(4);
  });

  it('costs no call for a caller without a plan while there is no account plan', async () => {
    const { gate, client } = await oneContainer();
    client.calls.length = 0;
    const metrics: { name: string }[] = [];
    const recorder: MetricRecorder = { count: (name) => metrics.push({ name }) };
    for (let i = 0; i < 20; i++) {
      const admission = admitted(
        await admit(gate, {
          callerId: 'free',
          plans: { plan: undefined, accountPlan: undefined },
          units: ONE_REQUEST,
          metrics: recorder,
        }),
      );
      expect(admission.headers).toEqual({});
    }
    expect(client.calls).toEqual([]);
    expect(metrics).toEqual([]);
  });

  it('refuses a caller over its quota from what it last saw, without a call, for a second', async () => {
    clock.now = T0;
    const { gate, client } = await oneContainer();
    const plans = { plan: { dayQuotaRequest: 1 }, accountPlan: undefined };
    admitted(await admit(gate, { callerId: 'x', plans, units: ONE_REQUEST }));
    client.calls.length = 0;
    for (let i = 0; i < 10; i++)
      refusal(await admit(gate, { callerId: 'x', plans, units: ONE_REQUEST }));
    expect(client.calls).toEqual([]);
    clock.now += 1001;
    refusal(await admit(gate, { callerId: 'x', plans, units: ONE_REQUEST }));
    expect(client.calls[0]).toBe('UpdateItemCommand');
  });
});

describe('the DynamoDB usage store down', () => {
  /** A store whose DynamoDB is a closed port: every call fails to connect. */
  function downStore(): UsageStore {
    const client = new DynamoDBClient({
      endpoint: 'http://127.0.0.1:9', // discard: nothing listens, the connection is refused
      region: 'us-east-1',
      credentials,
      maxAttempts: 1,
    });
    clients.push(client);
    return dynamoDbUsageStore({ tableName: 'usage-down', client });
  }

  it('admits uncounted when open, with a metric, a warning and the policy stated', async () => {
    const warnings: string[] = [];
    const log = createLogger({}, (line) => warnings.push(line));
    const gate = new UsageGate({ store: downStore(), onStoreFailure: 'open', log, now: () => T0 });
    const metrics: [string, Record<string, string>][] = [];
    const admission = admitted(
      await admit(gate, {
        callerId: 'reporting',
        plans: { plan: { dayQuotaRequest: 5 }, accountPlan: undefined },
        units: ONE_REQUEST,
        metrics: { count: (name, dimensions) => metrics.push([name, { ...dimensions }]) },
      }),
    );
    expect(admission.headers).toEqual({ 'RateLimit-Policy': '"caller-day";q=5;w=86400' });
    expect(metrics).toEqual([['UsageStoreFailures', { Policy: 'open' }]]);
    expect(warnings.join('\n')).toContain('rates held from memory, quotas open');
    await admission.giveBack(); // nothing was counted: nothing to give back
  });

  it('refuses with 503 / 500 when closed', async () => {
    const gate = new UsageGate({
      store: downStore(),
      onStoreFailure: 'closed',
      log: silent,
      now: () => T0,
    });
    const error = refusal(
      await admit(gate, {
        callerId: 'reporting',
        plans: { plan: undefined, accountPlan: { monthQuotaRequest: 5 } },
        units: ONE_REQUEST,
      }),
    );
    expect(error).toBeInstanceOf(UsageStoreUnavailableError);
    expect(error).toMatchObject({ status: 503, code: '500', message: 'Service Unavailable' });
  });
});
