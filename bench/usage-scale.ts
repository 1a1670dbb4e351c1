/**
 * The usage plans at scale (part of `npm run bench -- --only=usage`), against dynalite in a
 * process of its own:
 *
 *  5. the busiest item: 5,000 admissions a second across 8 containers, on a clock of their own
 *     (dynalite takes a few hundred writes a second here, so the second is virtual: each
 *     admission starts 0.2 ms after the one before), 40 callers (half held to 100 a second, on
 *     one item each; half with quotas only, spread over shards) under an account plan of 4,000
 *     a day that runs out within the second. Printed: the writes each item took in that second
 *     (the busiest, the account's shards), the admissions, and the over-admissions (goal 0);
 *     then a flood: one caller held to 100 a second sends 1,000 a second across 8 and 32
 *     containers, each serving one request at a time, with and without the hold after a lost
 *     token, and a flood of requests each refused after its admission (its units given back,
 *     its token kept, or given back too as before);
 *  6. a bulk cancel of 600 reserved jobs (3,000 jobs, pages of 100) by a caller held to 50 a
 *     second, through the real handler (route stack, meter, lease) against the emulator, its
 *     DynamoDB calls counted by a proxy in front of dynalite: units taken, store writes, time;
 *     and the same with a day quota of 300, which runs out midway (what `remaining` holds).
 */

import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, request as forward, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { demoSecretFor, startEmulator, syntheticScanJobs } from '../emulator/index.ts';
import { createLogger } from '../lib/core/log.ts';
import { admit } from '../lib/usage/admission.ts';
import { dynamoDbUsageStore } from '../lib/usage/dynamo-usage-store.ts';
import { UsageGate } from '../lib/usage/gate.ts';
import type { Plans } from '../lib/usage/plan.ts';
import { ONE_REQUEST } from '../lib/usage/units.ts';
import * as tables from '../sls/resolvers/tables.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const CREDENTIALS = { accessKeyId: 'AKIDLOOPBACKBENCH', secretAccessKey: 'loopback-bench' };
const silent = createLogger({}, () => {});
let tableCount = 0;

async function newTable(endpoint: string): Promise<string> {
  const tableName = `bench-usage-scale-${++tableCount}`;
  const client = new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: CREDENTIALS });
  await client.send(new CreateTableCommand(tables.createTableInput(tables.usage, tableName)));
  client.destroy();
  return tableName;
}

/** A client whose writes are counted by item key. */
function countingClient(endpoint: string, writes: Map<string, number>): DynamoDBClient {
  const client = new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: CREDENTIALS });
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === 'UpdateItemCommand') {
        const key = (args.input as { Key?: { usageKey?: { S?: string } } }).Key?.usageKey?.S;
        writes.set(key ?? '?', (writes.get(key ?? '?') ?? 0) + 1);
      }
      return next(args);
    },
    { step: 'initialize', name: 'countWrites' },
  );
  return client;
}

/** `total` admissions at `perSecond` on a virtual clock, `inFlight` at once over the gates. */
async function admissionsAt(
  gates: UsageGate[],
  clock: { now: number },
  options: {
    total: number;
    perSecond: number;
    inFlight: number;
    plansOf: (i: number) => Plans;
    callerOf?: (i: number) => string;
    /** Each worker sends through a container of its own, one request at a time. */
    oneEach?: boolean;
    /**
     * Each admitted request is then refused before its call goes out (its call refused, DNS)
     * and gives its units back: its quota units (`keep`, as now), or its token too (`none`,
     * as before 2026-11-28).
     */
    refusedAfter?: 'keep' | 'none';
  },
) {
  const { total, perSecond, inFlight, plansOf, callerOf = (i) => `c${i % 40}` } = options;
  let next = 0;
  let admitted = 0;
  const worker = async (w: number) => {
    while (next < total) {
      const i = next++;
      clock.now += 1000 / perSecond;
      const callerId = callerOf(i);
      const admission = await admit(gates[options.oneEach ? w : i % gates.length]!, {
        callerId,
        plans: plansOf(i),
        units: ONE_REQUEST,
      });
      if (!admission.admitted) continue;
      admitted += 1;
      if (options.refusedAfter) {
        await admission.giveBack({ keepToken: options.refusedAfter === 'keep' });
      }
    }
  };
  await Promise.all(Array.from({ length: inFlight }, (_, w) => worker(w)));
  return admitted;
}

function gatesOver(
  endpoint: string,
  tableName: string,
  clock: { now: number },
  options: { containers?: number; hold?: boolean } = {},
) {
  const { containers = 8, hold = true } = options;
  const writes = new Map<string, number>();
  const gates = Array.from(
    { length: containers },
    () =>
      new UsageGate({
        store: dynamoDbUsageStore({
          tableName,
          client: countingClient(endpoint, writes),
          // No hold after a lost token (random 0): the flood as it was without it.
          ...(hold ? {} : { random: () => 0 }),
        }),
        onStoreFailure: 'closed',
        log: silent,
        now: () => clock.now,
      }),
  );
  return { gates, writes };
}

async function busiestItem(endpoint: string): Promise<void> {
  const clock = { now: Date.UTC(2026, 10, 25, 10) };
  const { gates, writes } = gatesOver(endpoint, await newTable(endpoint), clock);
  const accountPlan = { dayQuotaRequest: 4000 };
  const paced = { rateRps: 100, dayQuotaRequest: 1_000_000 };
  const quotas = { dayQuotaRequest: 1_000_000 };
  const started = performance.now();
  const admitted = await admissionsAt(gates, clock, {
    total: 5000,
    perSecond: 5000,
    inFlight: 64,
    plansOf: (i) => ({ plan: i % 2 === 0 ? paced : quotas, accountPlan }),
  });
  const seconds = (performance.now() - started) / 1000;
  const sorted = [...writes.entries()].sort((a, b) => b[1] - a[1]);
  const account = sorted.filter(([key]) => key.startsWith('account'));
  const total = sorted.reduce((sum, [, n]) => sum + n, 0);
  console.log(
    `  5,000 admissions in one virtual second over 8 containers, 40 callers, account quota 4,000: ` +
      `${admitted} admitted (over-admitted ${Math.max(0, admitted - 4000)}), ${total} writes in all ` +
      `(${(total / 5000).toFixed(2)} an admission), ${seconds.toFixed(0)} s of dynalite`,
  );
  console.log(
    `  busiest items (writes in that second): ${sorted
      .slice(0, 4)
      .map(([k, n]) => `${k} ${n}`)
      .join(', ')}`,
  );
  console.log(
    `  the account's shards: ${account.map(([k, n]) => `${k.replace('account#', '#')} ${n}`).join(', ')}`,
  );
}

/**
 * One caller held to 100 a second sends 1,000 a second for 2 virtual seconds, each container
 * serving one request at a time (as a Lambda container does): the writes its item takes a
 * second, with the hold after a lost token (sightings.ts) and without it.
 */
async function flood(endpoint: string): Promise<void> {
  const plans = { plan: { rateRps: 100, dayQuotaRequest: 1_000_000 }, accountPlan: undefined };
  for (const containers of [8, 32]) {
    const cells: string[] = [];
    for (const hold of [true, false]) {
      const clock = { now: Date.UTC(2026, 10, 25, 10) };
      const table = await newTable(endpoint);
      const { gates, writes } = gatesOver(endpoint, table, clock, { containers, hold });
      const admitted = await admissionsAt(gates, clock, {
        total: 2000,
        perSecond: 1000,
        inFlight: containers,
        oneEach: true,
        plansOf: () => plans,
        callerOf: () => 'flood',
      });
      const perSecond = Math.max(...writes.values()) / 2;
      cells.push(
        `${hold ? 'with' : 'without'} the hold ${perSecond.toFixed(0)} (${admitted} admitted)`,
      );
    }
    console.log(
      `  one caller held to 100 a second sent 1,000 a second over ${containers} containers, ` +
        `writes a second on its item: ${cells.join('; ')}`,
    );
    // The same flood, each admitted request then refused before its call went out.
    const refused: string[] = [];
    for (const token of ['keep', 'none'] as const) {
      const clock = { now: Date.UTC(2026, 10, 25, 10) };
      const { gates, writes } = gatesOver(endpoint, await newTable(endpoint), clock, {
        containers,
      });
      const admitted = await admissionsAt(gates, clock, {
        total: 2000,
        perSecond: 1000,
        inFlight: containers,
        oneEach: true,
        plansOf: () => plans,
        callerOf: () => 'flood',
        refusedAfter: token,
      });
      const perSecond = Math.max(...writes.values()) / 2;
      refused.push(
        `${token === 'keep' ? 'the token kept' : 'the token given back too'} ${perSecond.toFixed(0)} (${admitted} admitted)`,
      );
    }
    console.log(
      `  the same, each admitted request refused after admission (units given back): ` +
        `${refused.join('; ')}`,
    );
  }
}

/** A proxy in front of dynalite that counts what reaches it, by target and item. */
function countingProxy(
  target: string,
): Promise<{ server: Server; url: string; calls: Map<string, number> }> {
  const calls = new Map<string, number>();
  const { hostname, port } = new URL(target);
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const action =
        String(req.headers['x-amz-target'] ?? '')
          .split('.')
          .pop() ?? '?';
      const key = (JSON.parse(body.toString() || '{}') as { Key?: { usageKey?: { S?: string } } })
        .Key?.usageKey?.S;
      const name = `${action} ${key?.replace(/#\d+$/, '#<shard>') ?? ''}`.trim();
      calls.set(name, (calls.get(name) ?? 0) + 1);
      const out = forward(
        { hostname, port, path: req.url, method: req.method, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 500, answer.headers);
          answer.pipe(res);
        },
      );
      out.end(body);
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, calls }),
    ),
  );
}

async function bulkCancel(endpoint: string): Promise<void> {
  const proxy = await countingProxy(endpoint);
  const emulator = await startEmulator({
    quiet: true,
    latencyMs: 5,
    scanJobs: () => syntheticScanJobs({ count: 3000, reserved: 600 }),
  });
  const token = (id: string) => `${id}-token-of-at-least-32-characters-0001`;
  const caller = (id: string, plan: unknown) => ({
    id,
    token: token(id),
    scopes: ['jobs:cancel-reserved'],
    plan,
  });
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-usage-'));
  const secretFile = path.join(dir, 'secret.json');
  writeFileSync(
    secretFile,
    JSON.stringify({
      ...demoSecretFor(emulator.url),
      callers: [
        caller('bulk', { rateRps: 50, dayQuotaRequest: 10_000 }),
        caller('capped', { rateRps: 50, dayQuotaRequest: 300 }),
      ],
    }),
  );
  Object.assign(process.env, {
    SECRETS_SOURCE: 'file',
    SECRETS_FILE: secretFile,
    SCAN_BASE_URL: emulator.url,
    GATEWAY_VENDOR: 'platform',
    USAGE_TABLE: await newTable(endpoint),
    AWS_ENDPOINT_URL_DYNAMODB: proxy.url,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey,
  });
  const { handler } = (await import(path.join(ROOT, 'functions/jobs/cancel-reserved.ts'))) as {
    handler: (
      event: unknown,
      context: unknown,
    ) => Promise<{ statusCode?: number; body?: string; headers?: Record<string, string> }>;
  };
  const event = (id: string) => ({
    version: '2.0',
    routeKey: 'POST /jobs/cancel-reserved',
    rawPath: '/jobs/cancel-reserved',
    rawQueryString: '',
    headers: { authorization: `Bearer ${token(id)}`, 'content-type': 'application/json' },
    requestContext: { http: { method: 'POST', path: '/jobs/cancel-reserved' }, requestId: 'bench' },
    body: JSON.stringify({ searchType: 'url', searchKeyword: 'load.example.com' }),
    isBase64Encoded: false,
  });
  // The function's own log lines (one names every job) are not the bench's.
  const print = console.log;
  console.log = () => {};
  try {
    for (const id of ['bulk', 'capped']) {
      emulator.reset();
      proxy.calls.clear();
      const before = emulator.received();
      const deadline = Date.now() + 25_000;
      const context = {
        awsRequestId: `bench-${id}`,
        getRemainingTimeInMillis: () => Math.max(deadline - Date.now(), 0),
      };
      const started = performance.now();
      const result = await handler(event(id), context);
      const wallS = (performance.now() - started) / 1000;
      const answer = JSON.parse(result.body ?? '{}') as {
        cancelled?: string[];
        remaining?: string[];
        complete?: boolean;
      };
      const sent = emulator.received() - before;
      const calls = [...proxy.calls.entries()].map(([name, n]) => `${name} ${n}`).join(', ');
      print(
        `  ${id === 'bulk' ? 'rateRps 50, day quota 10,000' : 'rateRps 50, day quota 300'}: ${result.statusCode}, ` +
          `${answer.cancelled?.length} cancelled, ${answer.remaining?.length} remaining, complete ${answer.complete}; ` +
          `${sent} calls sent (units), ${wallS.toFixed(1)} s; RateLimit ${result.headers?.RateLimit}`,
      );
      print(`    DynamoDB calls: ${calls}`);
    }
  } finally {
    console.log = print;
    await emulator.close();
    proxy.server.close();
  }
}

export async function benchUsageScale(endpoint: string): Promise<void> {
  console.log('5. no hot item');
  await busiestItem(endpoint);
  await flood(endpoint);
  console.log('6. bulk work counts what it sends (the handler, through the stack)');
  await bulkCancel(endpoint);
}
