/**
 * `npm run bench -- --only=scale`: what work that grows costs. For N in {100, 1,000, 10,000}
 * scan jobs and a round trip of {5, 50} ms on every platform call, the real functions run
 * against the emulator: POST /jobs/cancel-reserved (a quarter of the N jobs reserved) and one
 * watcher pass (its view in DynamoDB, dynalite on loopback, after a baseline pass; N/100 jobs
 * changed in between). Each run is a fresh Node process that loads the function's bundle as
 * Lambda loads a `.cjs` handler (built with serverless.yml's esbuild options, the AWS SDK from
 * NODE_PATH as the runtime provides it) and invokes it once with the function's own timeout as
 * its remaining time. Printed per cell: the invocation's wall time, the platform calls the
 * emulator received, DynamoDB calls (the watcher's count of its own), and the process's peak
 * RSS (`process.resourceUsage().maxRSS`), beside an empty Node process for scale.
 *
 * Then the measurement behind the default of 8 calls in flight: cancel-reserved over 500
 * reserved jobs at 50 ms with 4 to 32 cancels in flight, against a gateway without a limit and
 * one that throttles above 100 calls a second.
 *
 * Options: --node=/path/to/node (e.g. Node 24, as on Lambda), --sizes=100,1000 (fewer cells).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { build, type Plugin } from 'esbuild';
import { type Emulator, startEmulator, syntheticScanJobs } from '../emulator/index.ts';
import { jobRoutes } from '../lib/http/routes/jobs.ts';
import { WATCHER_FUNCTION } from '../lib/watcher/watcher.ts';
import { startDynalite } from '../scripts/local-ledger.ts';
import { FUNCTIONS } from '../sls/functions.ts';
import * as tables from '../sls/resolvers/tables.ts';
import type { BenchOptions } from './args.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const run = promisify(execFile);
const SIZES = [100, 1000, 10_000];
const LATENCIES = [5, 50];
/** The functions' timeouts (the function table, sls/functions.ts). */
const CANCEL_RESERVED_TIMEOUT_MS = FUNCTIONS[jobRoutes.cancelReservedJobs.function]!.timeout * 1000;
const WATCHER_TIMEOUT_MS = FUNCTIONS[WATCHER_FUNCTION]!.timeout * 1000;
const SEARCH = { searchType: 'url', searchKeyword: 'load.example.com' };
const FAKE_AWS = {
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'AKIDLOOPBACKBENCH',
  AWS_SECRET_ACCESS_KEY: 'loopback-bench',
};

/**
 * Loads a bundle as Lambda loads a `.cjs` handler, invokes it once with `remainingMs` left,
 * writes its log lines as Lambda's runtime would (to a file descriptor, here /dev/null) and
 * prints the answer, the invocation's wall time and the process's peak RSS.
 */
const RUNNER = `
const fs = require('node:fs');
const devNull = fs.openSync('/dev/null', 'w');
const walkLines = [];
console.log = (line) => {
  const text = String(line);
  if (text.includes('"cancel-reserved')) walkLines.push(text);
  fs.writeSync(devNull, text + '\\n');
};
const handler = require(process.argv[2]).handler;
const remainingMs = Number(process.argv[4]);
const deadline = Date.now() + remainingMs;
const context = {
  awsRequestId: 'bench', functionName: 'bench', memoryLimitInMB: '256',
  getRemainingTimeInMillis: () => Math.max(deadline - Date.now(), 0),
};
const started = performance.now();
Promise.resolve(handler(JSON.parse(process.argv[3]), context)).then((result) => {
  const wallMs = performance.now() - started;
  const maxRssKb = process.resourceUsage().maxRSS;
  const walk = walkLines.length ? JSON.parse(walkLines[walkLines.length - 1]) : undefined;
  process.stdout.write('\\n@result ' + JSON.stringify({ result, wallMs, maxRssKb, walk }) + '\\n');
}, (error) => {
  process.stdout.write('\\n@error ' + String(error && error.message) + '\\n');
  process.exitCode = 1;
});
`;

interface Invocation {
  readonly result: { statusCode?: number; body?: string } & Record<string, unknown>;
  readonly wallMs: number;
  readonly maxRssKb: number;
  readonly walk?: { throttles?: number; lowestCancelConcurrency?: number };
}

interface Bundles {
  readonly cancelReserved: string;
  readonly watcher: string;
  readonly runner: string;
}

/** The two functions' bundles, built with serverless.yml's esbuild options. */
async function buildBundles(): Promise<Bundles> {
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-scale-'));
  const plugins = createRequire(import.meta.url)('../sls/plugins/esbuild-plugins.ts') as Plugin[];
  const bundle = async (entry: string, name: string) => {
    const outfile = path.join(dir, `${name}.cjs`);
    await build({
      entryPoints: [path.join(ROOT, entry)],
      outfile,
      bundle: true,
      minify: true,
      target: 'node24',
      platform: 'node',
      format: 'cjs',
      mainFields: ['module', 'main'],
      external: ['@aws-sdk/*'],
      supported: { 'dynamic-import': false },
      plugins,
      logLevel: 'silent',
    });
    return outfile;
  };
  const runner = path.join(dir, 'runner.cjs');
  writeFileSync(runner, RUNNER);
  return {
    cancelReserved: await bundle('functions/jobs/cancel-reserved.ts', 'cancelReservedJobs'),
    watcher: await bundle('functions/watcher/scan.ts', 'watchScanJobs'),
    runner,
  };
}

async function invoke(
  node: string,
  bundles: Bundles,
  bundle: string,
  event: unknown,
  remainingMs: number,
  env: Record<string, string>,
): Promise<Invocation> {
  const { stdout } = await run(
    node,
    [bundles.runner, bundle, JSON.stringify(event), String(remainingMs)],
    {
      env: {
        PATH: process.env.PATH ?? '',
        // The AWS SDK clients are not bundled: Lambda's runtime provides them on NODE_PATH.
        NODE_PATH: path.join(ROOT, 'node_modules'),
        SECRETS_SOURCE: 'file',
        SECRETS_FILE: path.join(ROOT, 'emulator/demo-secret.json'),
        GATEWAY_VENDOR: 'platform',
        ...env,
      },
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  const line = stdout.split('\n').find((text) => text.startsWith('@result '));
  if (!line) throw new Error(`The function did not answer: ${stdout.slice(-500)}`);
  return JSON.parse(line.slice('@result '.length)) as Invocation;
}

function sampleEvent(file: string): Record<string, unknown> {
  return JSON.parse(readFileSync(path.join(ROOT, 'events', file), 'utf8'));
}

/** Every platform call the emulator received (its request log keeps only the latest 2,000). */
const gatewayCalls = (emulator: Emulator) => emulator.received();

interface Row {
  readonly fn: string;
  readonly jobs: number;
  readonly latencyMs: number;
  readonly wallMs: number;
  readonly upstreamCalls: number;
  readonly dynamoDbCalls?: number;
  readonly peakMb: number;
  readonly note: string;
}

async function cancelReservedCell(
  node: string,
  bundles: Bundles,
  jobs: number,
  latencyMs: number,
  options: { reserved?: number; rateLimitPerSecond?: number; env?: Record<string, string> } = {},
): Promise<{ row: Row; invocation: Invocation }> {
  const reserved = options.reserved ?? Math.floor(jobs / 4);
  const emulator = await startEmulator({
    quiet: true,
    latencyMs,
    rateLimitPerSecond: options.rateLimitPerSecond,
    scanJobs: () => syntheticScanJobs({ count: jobs, reserved }),
  });
  try {
    const event = { ...sampleEvent('jobs-cancel-reserved.json'), body: JSON.stringify(SEARCH) };
    const invocation = await invoke(
      node,
      bundles,
      bundles.cancelReserved,
      event,
      CANCEL_RESERVED_TIMEOUT_MS,
      { SCAN_BASE_URL: emulator.url, ...options.env },
    );
    const answer = JSON.parse(invocation.result.body ?? '{}') as {
      cancelled?: string[];
      failed?: unknown[];
      remaining?: string[];
      complete?: boolean;
    };
    const status = invocation.result.statusCode;
    const note =
      status === 200
        ? `${answer.cancelled?.length} of ${reserved} cancelled, ${answer.failed?.length} failed, ` +
          `${answer.remaining?.length} remaining${answer.complete ? '' : ' (complete: false)'}`
        : `answered ${status}`;
    return {
      invocation,
      row: {
        fn: 'cancel-reserved',
        jobs,
        latencyMs,
        wallMs: invocation.wallMs,
        upstreamCalls: gatewayCalls(emulator),
        peakMb: invocation.maxRssKb / 1024,
        note,
      },
    };
  } finally {
    await emulator.close();
  }
}

async function watcherCells(
  node: string,
  bundles: Bundles,
  jobs: number,
  latencyMs: number,
): Promise<Row[]> {
  const emulator = await startEmulator({
    quiet: true,
    latencyMs,
    scanJobs: () => syntheticScanJobs({ count: jobs }),
  });
  const dynamo: Server = await startDynalite();
  const endpoint = `http://127.0.0.1:${(dynamo.address() as AddressInfo).port}`;
  try {
    const client = new DynamoDBClient({
      endpoint,
      region: FAKE_AWS.AWS_REGION,
      credentials: { accessKeyId: 'bench', secretAccessKey: 'bench' },
    });
    const tableName = `watcher-bench-${jobs}-${latencyMs}`;
    await client.send(
      new CreateTableCommand(tables.createTableInput(tables.watcherState, tableName)),
    );
    client.destroy();
    const env = {
      SCAN_BASE_URL: emulator.url,
      WATCHER_STATE_TABLE: tableName,
      AWS_ENDPOINT_URL_DYNAMODB: endpoint,
      ...FAKE_AWS,
    };
    const pass = async (label: string, note: (summary: Record<string, unknown>) => string) => {
      const before = emulator.received();
      const invocation = await invoke(
        node,
        bundles,
        bundles.watcher,
        sampleEvent('schedule.json'),
        WATCHER_TIMEOUT_MS,
        env,
      );
      const summary = invocation.result;
      return {
        fn: label,
        jobs,
        latencyMs,
        wallMs: invocation.wallMs,
        upstreamCalls: gatewayCalls(emulator) - before,
        dynamoDbCalls: Number(summary.stateReads) + Number(summary.stateWrites),
        peakMb: invocation.maxRssKb / 1024,
        note: `${note(summary)}${summary.complete ? '' : ' (complete: false)'}`,
      } satisfies Row;
    };
    const baseline = await pass('watcher, first pass', (s) => `${s.baselined} recorded`);
    // N/100 jobs change between passes: reserved jobs cancelled, spread over the list.
    const reserved = emulator.scanJobs.list().filter((job) => job.status === 'Reservation');
    const changes = Math.max(1, Math.floor(jobs / 100));
    const step = Math.max(1, Math.floor(reserved.length / changes));
    for (let index = 0; index < changes; index++) {
      const job = reserved[index * step];
      if (job) emulator.scanJobs.cancel(job.instanceNo);
    }
    const next = await pass(
      'watcher pass',
      (s) =>
        `${s.emitted} of ${s.changes} changes announced; DynamoDB ${s.stateReads} reads, ${s.stateWrites} writes`,
    );
    return [next, baseline];
  } finally {
    await emulator.close();
    await new Promise((resolve) => dynamo.close(resolve));
  }
}

function printRows(rows: readonly Row[]): void {
  console.info(
    '   function               N jobs  latency   wall ms   upstream calls   DynamoDB calls   peak RSS MB   what it did',
  );
  for (const row of rows) {
    console.info(
      `   ${row.fn.padEnd(21)}${String(row.jobs).padStart(8)}${`${row.latencyMs} ms`.padStart(9)}` +
        `${row.wallMs.toFixed(0).padStart(10)}${String(row.upstreamCalls).padStart(17)}` +
        `${(row.dynamoDbCalls === undefined ? '-' : String(row.dynamoDbCalls)).padStart(17)}` +
        `${row.peakMb.toFixed(0).padStart(14)}   ${row.note}`,
    );
  }
}

export async function benchScale(options: BenchOptions): Promise<void> {
  const node = options.nodes[0] ?? process.execPath;
  const sizes = options.sizes ?? SIZES;
  const bundles = await buildBundles();
  const version = (await run(node, ['--version'])).stdout.trim();
  const empty = JSON.parse(
    (
      await run(node, [
        '-e',
        'process.stdout.write(JSON.stringify(process.resourceUsage().maxRSS))',
      ])
    ).stdout,
  ) as number;
  console.info(
    `\nScale: work that grows (Node ${version}; one fresh process per cell, the bundle loaded as Lambda loads it;` +
      ` an empty Node process peaks at ${(empty / 1024).toFixed(0)} MB)`,
  );
  console.info(
    '   cancel-reserved: a search matching all N jobs, a quarter reserved; the watcher: N/100 changes since the first pass',
  );
  const rows: Row[] = [];
  for (const latencyMs of LATENCIES) {
    for (const jobs of sizes) {
      rows.push((await cancelReservedCell(node, bundles, jobs, latencyMs)).row);
      rows.push(...(await watcherCells(node, bundles, jobs, latencyMs)));
    }
  }
  const order = ['cancel-reserved', 'watcher pass', 'watcher, first pass'];
  printRows(
    [...rows].sort(
      (a, b) =>
        order.indexOf(a.fn) - order.indexOf(b.fn) || a.latencyMs - b.latencyMs || a.jobs - b.jobs,
    ),
  );

  console.info(
    '\n   Cancels in flight (BULK_CANCEL_CONCURRENCY): cancel-reserved over 500 reserved jobs at 50 ms',
  );
  console.info(
    '   in flight   gateway limit    wall ms   upstream calls   throttled   lowest in flight   what it did',
  );
  for (const rateLimitPerSecond of [undefined, 100]) {
    for (const concurrency of [4, 8, 16, 32]) {
      const { row, invocation } = await cancelReservedCell(node, bundles, 500, 50, {
        reserved: 500,
        rateLimitPerSecond,
        env: { BULK_CANCEL_CONCURRENCY: String(concurrency) },
      });
      const limit = rateLimitPerSecond ? `${rateLimitPerSecond}/s` : 'none';
      console.info(
        `   ${String(concurrency).padStart(9)}${limit.padStart(16)}${row.wallMs.toFixed(0).padStart(11)}` +
          `${String(row.upstreamCalls).padStart(17)}${String(invocation.walk?.throttles ?? 0).padStart(12)}` +
          `${String(invocation.walk?.lowestCancelConcurrency ?? '-').padStart(19)}   ${row.note}`,
      );
    }
  }
}
