/**
 * `npm run bench -- --only=usage`: what the usage plans cost, against dynalite on loopback
 * (DynamoDB's API and its per-item atomic conditional writes, in one local process). Each
 * "container" is a usage gate with a store and a DynamoDB client of its own, as each Lambda
 * container has; the DynamoDB calls are counted by a middleware on each client. Printed:
 *
 *  1. store calls per admitted request in the steady state: a caller's plan with rate, day and
 *     month on one item (goal: at most 1), one container and four; a plan spread over shards
 *     (no rate, or one above 250 a second); the account's plan alone (spread), and with a
 *     caller's; a caller without a plan while there is no account plan (goal: 0);
 *  2. the wall time an admission adds, p50 and p99, one request at a time;
 *  3. one caller's admissions a second, 64 requests in flight across 8 containers;
 *  4. over-admission: 200 requests at once across 8 containers against a day quota of 50
 *     (goal: 0), five times;
 *  5. and 6. the busiest item at 5,000 admissions a second, and a bulk cancel (usage-scale.ts).
 *
 * dynalite is not DynamoDB: it runs in this process (its time is this machine's CPU), it
 * serializes the writes of one item behind a lock, and it does not return a refused write's
 * item (ReturnValuesOnConditionCheckFailure), so a refused or mispredicted write costs a
 * GetItem here that DynamoDB does not: those are counted apart.
 *
 * Options: --runs=N (admissions per steady-state cell, 1000 by default).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createLogger } from '../lib/core/log.ts';
import type { PlanEntry } from '../lib/secrets/callers-schema.ts';
import { type Admission, admit as admitWith } from '../lib/usage/admission.ts';
import { dynamoDbUsageStore } from '../lib/usage/dynamo-usage-store.ts';
import { UsageGate } from '../lib/usage/gate.ts';
import { ONE_REQUEST } from '../lib/usage/units.ts';
import * as tables from '../sls/resolvers/tables.ts';
import type { BenchOptions } from './args.ts';
import { benchUsageScale } from './usage-scale.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const CREDENTIALS = { accessKeyId: 'AKIDLOOPBACKBENCH', secretAccessKey: 'loopback-bench' };
const silent = createLogger({}, () => {});

interface Container {
  readonly gate: UsageGate;
  readonly calls: string[];
}

let endpoint = '';
const clients: DynamoDBClient[] = [];
let tableCount = 0;

function countingClient(calls: string[]): DynamoDBClient {
  const client = new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: CREDENTIALS });
  client.middlewareStack.add(
    (next, context) => (args) => {
      calls.push(context.commandName ?? '?');
      return next(args);
    },
    { step: 'initialize', name: 'countCalls' },
  );
  clients.push(client);
  return client;
}

/** `count` containers over a fresh table, on the real clock or on `now`. */
async function containers(count: number, now?: () => number): Promise<Container[]> {
  const tableName = `bench-usage-${++tableCount}`;
  const setup = countingClient([]);
  await setup.send(new CreateTableCommand(tables.createTableInput(tables.usage, tableName)));
  return Array.from({ length: count }, () => {
    const calls: string[] = [];
    const store = dynamoDbUsageStore({ tableName, client: countingClient(calls) });
    return { gate: new UsageGate({ store, onStoreFailure: 'closed', log: silent, now }), calls };
  });
}

/** A caller held to 200 a second: one item (shards.ts). */
const ONE_ITEM: PlanEntry = {
  rateRps: 200,
  burst: 200,
  dayQuotaRequest: 100_000_000,
  monthQuotaRequest: 1_000_000_000,
};

const NEVER_REFUSED: PlanEntry = {
  rateRps: 1_000_000,
  burst: 1_000_000,
  dayQuotaRequest: 100_000_000,
  monthQuotaRequest: 1_000_000_000,
};

function admit(container: Container, plan?: PlanEntry, accountPlan?: PlanEntry) {
  return admitWith(container.gate, {
    callerId: 'bench',
    plans: { plan, accountPlan },
    units: ONE_REQUEST,
  });
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

const fixed = (value: number, digits = 2) => value.toFixed(digits);

/**
 * Calls per admitted request after one warm-up admission per container, and their kinds, on a
 * clock of their own: the requests arrive at 50 a second, whatever dynalite's pace (a caller
 * held to 200 a second is then well within its rate; near it, see nearTheRate).
 */
async function callsPerAdmission(
  label: string,
  count: number,
  options: { containers: number; inFlight: number; plan?: PlanEntry; accountPlan?: PlanEntry },
): Promise<void> {
  const clock = { now: Date.now() };
  const all = await containers(options.containers, () => {
    clock.now += 1000 / 50;
    return clock.now;
  });
  for (const container of all) await admit(container, options.plan, options.accountPlan);
  for (const container of all) container.calls.length = 0;
  let admitted = 0;
  let next = 0;
  const worker = async (index: number) => {
    while (next < count) {
      next++;
      const container = all[index % all.length]!;
      const admission: Admission = await admit(container, options.plan, options.accountPlan);
      if (admission.admitted) admitted++;
    }
  };
  await Promise.all(
    Array.from({ length: options.containers * options.inFlight }, (_, i) => worker(i)),
  );
  const calls = all.flatMap((container) => container.calls);
  const writes = calls.filter((call) => call === 'UpdateItemCommand').length;
  const reads = calls.filter((call) => call === 'GetItemCommand').length;
  console.log(
    `  ${label.padEnd(58)} ${fixed(writes / admitted).padStart(5)} writes ${fixed(reads / admitted).padStart(5)} reads` +
      `   (${admitted} admitted)`,
  );
}

async function wallTime(label: string, count: number, plan?: PlanEntry, accountPlan?: PlanEntry) {
  const [container] = await containers(1);
  for (let i = 0; i < 50; i++) await admit(container!, plan, accountPlan);
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const start = performance.now();
    await admit(container!, plan, accountPlan);
    times.push(performance.now() - start);
  }
  console.log(
    `  ${label.padEnd(58)} p50 ${fixed(percentile(times, 50), 3).padStart(7)} ms   p99 ${fixed(percentile(times, 99), 3).padStart(7)} ms`,
  );
}

async function throughput(seconds: number): Promise<void> {
  const all = await containers(8);
  const plan: PlanEntry = { dayQuotaRequest: 100_000_000, monthQuotaRequest: 1_000_000_000 };
  for (const container of all) await admit(container, plan);
  const until = performance.now() + seconds * 1000;
  let admitted = 0;
  const worker = async (container: Container) => {
    while (performance.now() < until) {
      if ((await admit(container, plan)).admitted) admitted++;
    }
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: 64 }, (_, i) => worker(all[i % all.length]!)));
  const elapsed = (performance.now() - start) / 1000;
  console.log(
    `  one caller, 64 in flight over 8 containers, ${seconds} s: ${Math.round(admitted / elapsed)} admissions a second`,
  );
}

/** dynalite alone: plain UpdateItem ADDs to one item, 64 in flight: what the store takes. */
async function bareWrites(seconds: number): Promise<void> {
  const tableName = `bench-usage-${++tableCount}`;
  const client = countingClient([]);
  await client.send(new CreateTableCommand(tables.createTableInput(tables.usage, tableName)));
  const { UpdateItemCommand } = await import('@aws-sdk/client-dynamodb');
  const until = performance.now() + seconds * 1000;
  let writes = 0;
  const worker = async () => {
    while (performance.now() < until) {
      await client.send(
        new UpdateItemCommand({
          TableName: tableName,
          Key: { usageKey: { S: 'caller#bench' } },
          UpdateExpression: 'ADD dayRequests :one',
          ExpressionAttributeValues: { ':one': { N: '1' } },
        }),
      );
      writes++;
    }
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: 64 }, worker));
  console.log(
    `  dynalite alone, plain ADDs to one item, 64 in flight, ${seconds} s: ${Math.round(writes / ((performance.now() - start) / 1000))} writes a second`,
  );
}

async function overAdmission(rounds: number): Promise<void> {
  const results: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const all = await containers(8);
    const plan: PlanEntry = { dayQuotaRequest: 50 };
    const admissions = await Promise.all(
      Array.from({ length: 200 }, (_, i) => admit(all[i % all.length]!, plan)),
    );
    results.push(admissions.filter((a) => a.admitted).length);
  }
  console.log(
    `  200 at once over 8 containers, day quota 50, ${rounds} rounds: admitted ${results.join(', ')};` +
      ` over-admitted ${Math.max(0, ...results.map((n) => n - 50))}`,
  );
}

/**
 * dynalite in a process of its own, as DynamoDB is elsewhere: its work is not this process's
 * (on two cores, it gets the other).
 */
async function startDynaliteProcess(): Promise<{ port: number; child: ChildProcess }> {
  const child = spawn(
    process.execPath,
    [
      '-e',
      "const d = require('dynalite')({ createTableMs: 0, deleteTableMs: 0 });" +
        "d.listen(0, '127.0.0.1', () => console.log('listening ' + d.address().port));",
    ],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`dynalite exited with ${code}`)));
    child.stdout?.on('data', (chunk: Buffer) => {
      const match = /listening (\d+)/.exec(chunk.toString());
      if (match) resolve(Number(match[1]));
    });
  });
  return { port, child };
}

/**
 * Requests paced as independent arrivals (exponential gaps) at `perSecond` over `seconds`,
 * spread over `count` containers, against a bucket of `rateRps`: a caller near its rate, where
 * a container's guess of the bucket's form is most often wrong.
 */
async function nearTheRate(count: number, perSecond: number, seconds: number, plan: PlanEntry) {
  const all = await containers(count);
  for (const container of all) await admit(container, plan);
  await new Promise((resolve) => setTimeout(resolve, 2000));
  for (const container of all) container.calls.length = 0;
  const pending: Promise<Admission>[] = [];
  const end = performance.now() + seconds * 1000;
  let index = 0;
  while (performance.now() < end) {
    pending.push(admit(all[index++ % all.length]!, plan));
    await new Promise((resolve) =>
      setTimeout(resolve, -Math.log(1 - Math.random()) * (1000 / perSecond)),
    );
  }
  const admissions = await Promise.all(pending);
  const admitted = admissions.filter((a) => a.admitted).length;
  const calls = all.flatMap((container) => container.calls);
  const writes = calls.filter((call) => call === 'UpdateItemCommand').length;
  const reads = calls.filter((call) => call === 'GetItemCommand').length;
  console.log(
    `  ${`${perSecond}/s over ${count} containers, bucket of ${plan.rateRps}/s burst ${plan.burst}`.padEnd(58)}` +
      ` ${fixed(writes / pending.length).padStart(5)} writes ${fixed(reads / pending.length).padStart(5)} reads a request` +
      `   (${admitted} admitted, ${pending.length - admitted} refused)`,
  );
}

export async function benchUsage(options: BenchOptions): Promise<void> {
  const runs = options.runs ?? 1000;
  const dynalite = await startDynaliteProcess();
  endpoint = `http://127.0.0.1:${dynalite.port}`;
  try {
    console.log('\n== usage plans (dynalite on loopback) ==');
    console.log('1. store calls per admitted request, steady state');
    await callsPerAdmission('caller plan, 200/s, one item; 1 container, 1 at a time', runs, {
      containers: 1,
      inFlight: 1,
      plan: ONE_ITEM,
    });
    await callsPerAdmission('caller plan, 200/s, one item; 4 containers, 1 each', runs, {
      containers: 4,
      inFlight: 1,
      plan: ONE_ITEM,
    });
    await callsPerAdmission('caller plan, 10^6/s, 8 shards; 4 containers, 1 each', runs, {
      containers: 4,
      inFlight: 1,
      plan: NEVER_REFUSED,
    });
    await callsPerAdmission('caller plan (day, month only), 8 shards; 4 x 4', runs, {
      containers: 4,
      inFlight: 4,
      plan: { dayQuotaRequest: 100_000_000, monthQuotaRequest: 1_000_000_000 },
    });
    await callsPerAdmission('account plan alone, 8 shards; 4 containers, 4 each', runs, {
      containers: 4,
      inFlight: 4,
      accountPlan: { monthQuotaRequest: 1_000_000_000 },
    });
    await callsPerAdmission('caller plan (one item) and account plan, 1 container', runs, {
      containers: 1,
      inFlight: 1,
      plan: ONE_ITEM,
      accountPlan: { monthQuotaRequest: 1_000_000_000 },
    });
    await callsPerAdmission('no plan, no account plan', runs, { containers: 1, inFlight: 1 });
    console.log('   a caller near its rate (refused requests included)');
    await nearTheRate(4, 40, 10, { rateRps: 50, burst: 10 });
    await nearTheRate(4, 60, 10, { rateRps: 50, burst: 10 });
    console.log('2. wall time an admission adds, one at a time');
    await wallTime('caller plan (rate, day, month)', runs, NEVER_REFUSED);
    await wallTime('caller plan and account plan', runs, NEVER_REFUSED, {
      monthQuotaRequest: 1_000_000_000,
    });
    await wallTime('no plan, no account plan', runs);
    console.log('3. one caller, one item');
    await throughput(3);
    await bareWrites(3);
    console.log('4. exactness');
    await overAdmission(5);
    await benchUsageScale(endpoint);
  } finally {
    for (const client of clients) client.destroy();
    dynalite.child.kill();
  }
}
