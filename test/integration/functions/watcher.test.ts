/**
 * The scheduled scan job watcher invoked as Lambda invokes it, against the embedded emulator
 * over loopback, across several runs with changes between them and runs that fail. State
 * lives in a file or in DynamoDB (dynalite, real client); changes go to a loopback PutEvents
 * (real EventBridge client) or to the log.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import type { Context, ScheduledEvent } from 'aws-lambda';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Emulator } from '../../../emulator/index.ts';
import { loadConfig } from '../../../lib/core/config.ts';
import { createLogger } from '../../../lib/core/log.ts';
import type { WalkPlan } from '../../../lib/core/walk-plan.ts';
import { createRuntime } from '../../../lib/runtime.ts';
import { bulkScanJobsOf } from '../../../lib/scan-jobs/bulk.ts';
import type { StatusChangeDetail } from '../../../lib/watcher/changes.ts';
import { fileStateStore } from '../../../lib/watcher/file-state-store.ts';
import { ScanJobWatcher, type WatchSummary } from '../../../lib/watcher/watcher.ts';
import { createActiveTable, startDynalite } from '../../../scripts/local-ledger.ts';
import * as tables from '../../../sls/resolvers/tables.ts';
import { LOOPBACK_AWS } from '../../helpers/aws.ts';
import { testCall } from '../../helpers/call-context.ts';
import { emulatorForSuite } from '../../helpers/emulator.ts';
import {
  type EventBridgeServer,
  startEventBridgeServer,
} from '../../helpers/event-bridge-server.ts';
import { lambdaContext, sampleEvent } from '../../helpers/lambda.ts';
import { captureLogLines } from '../../helpers/logs.ts';
import { demoSecret, emulatorEnv, loadHandlers } from '../../helpers/platform.ts';

type WatchHandler = (event: ScheduledEvent, context: Context) => Promise<WatchSummary>;

const WATCHER = 'functions/watcher/scan.ts';
const WATCHER_VARIABLES = ['WATCHER_STATE_TABLE', 'WATCHER_STATE_FILE', 'EVENT_BUS_NAME'];
const FAKE_AWS = LOOPBACK_AWS;

const scheduledEvent = () => sampleEvent<ScheduledEvent>('schedule.json');

/** The watcher module loaded fresh (a cold start) with the emulator's and these variables. */
async function loadWatcher(emulator: Emulator, extra: Record<string, string>) {
  for (const name of WATCHER_VARIABLES) delete process.env[name];
  const { watch } = await loadHandlers(emulatorEnv(emulator, { ...FAKE_AWS, ...extra }), {
    watch: WATCHER,
  });
  const handler = watch as unknown as WatchHandler;
  return (): Promise<WatchSummary> => handler(scheduledEvent(), lambdaContext(30_000));
}

const detailsOf = (server: EventBridgeServer): StatusChangeDetail[] =>
  server.accepted.map((entry) => JSON.parse(entry.Detail ?? '{}') as StatusChangeDetail);
const changeIds = (details: readonly StatusChangeDetail[]) => details.map((d) => d.changeId);
const range = (from: number, to: number, status: string) =>
  Array.from({ length: to - from + 1 }, (_, i) => `${from + i}:${status}`);

describe('the scan job watcher function', () => {
  const emulator = emulatorForSuite();
  let events: EventBridgeServer;
  let logLines: string[];
  const savedEnv = { ...process.env };

  beforeAll(async () => {
    events = await startEventBridgeServer();
  });
  beforeEach(() => {
    logLines = captureLogLines();
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });
  afterAll(async () => {
    process.env = savedEnv;
    await events.close();
  });

  it('announces each change once to EventBridge across runs, failed runs included', async () => {
    const stateFile = path.join(await mkdtemp(path.join(tmpdir(), 'watcher-it-')), 'state.json');
    const run = await loadWatcher(emulator, {
      WATCHER_STATE_FILE: stateFile,
      EVENT_BUS_NAME: 'scan-events',
      AWS_ENDPOINT_URL_EVENTBRIDGE: events.endpoint,
    });

    // 1. First run: every job is history, recorded and not announced.
    expect(await run()).toMatchObject({
      pages: 1, // 25 jobs, 100 per page
      jobs: 25,
      changes: 0,
      emitted: 0,
      skipped: 0,
      baselined: 25,
      complete: true,
    });
    expect(events.calls).toHaveLength(0);
    const baseline = JSON.parse(await readFile(stateFile, 'utf8'));
    expect(Object.keys(baseline.jobs)).toHaveLength(25);

    // 2. A cancel, then a run whose listing fails: nothing announced, nothing recorded.
    expect(emulator.scanJobs.cancel('2810025')).toBe('done');
    emulator.faults.add({ kind: 'reset', times: 0, match: { pathPrefix: '/api/v1/jobs' } });
    await expect(run()).rejects.toThrow(/scan job watch failed/);
    expect(events.calls).toHaveLength(0);
    expect(JSON.parse(await readFile(stateFile, 'utf8'))).toEqual(baseline);
    emulator.faults.clear();

    // 3. More changes; the next run catches up with all of them, 10 per PutEvents.
    expect(emulator.scanJobs.stop('2810016')).toBe('done');
    emulator.scanJobs.advance(); // 2810012-15 complete, 2810017-24 start
    expect(await run()).toMatchObject({ changes: 14, emitted: 14 });
    // 10 a PutEvents; the chunks go out several at a time, in any order.
    expect(events.calls.map((c) => c.entries.length).sort((a, b) => a - b)).toEqual([4, 10]);
    const second = detailsOf(events);
    expect(changeIds(second).sort()).toEqual(
      [
        '2810025:Cancel',
        '2810016:Stop',
        ...range(2810012, 2810015, 'Complete'),
        ...range(2810017, 2810024, 'Progress'),
      ].sort(),
    );
    expect(second.find((d) => d.instanceNo === '2810025')).toMatchObject({
      previousStatus: 'Reservation',
      status: 'Cancel',
      memo: 'weekend scan',
      start_url: 'https://shop.example.net/promo',
    });
    expect(second.find((d) => d.instanceNo === '2810012')).toMatchObject({
      previousStatus: 'Progress',
      reportPath: '/jobs/2810012/report',
    });
    expect(second.every((d) => (d.status === 'Complete') === 'reportPath' in d)).toBe(true);

    // 4. Nothing changed: nothing announced.
    expect(await run()).toMatchObject({ changes: 0, emitted: 0 });
    expect(events.calls).toHaveLength(2);

    // 5. Eight jobs complete; EventBridge takes five and then refuses every entry.
    emulator.scanJobs.advance();
    let room = 5;
    events.refuse = () => (room-- > 0 ? undefined : 'InternalFailure');
    await expect(run()).rejects.toThrow(/3 of 8 scan job changes could not be announced/);
    expect(events.accepted).toHaveLength(19);

    // 6. EventBridge recovers: the next run announces exactly the three that did not go out.
    events.refuse = () => undefined;
    expect(await run()).toMatchObject({ changes: 3, emitted: 3 });
    const all = changeIds(detailsOf(events));
    expect(new Set(all).size).toBe(all.length);
    expect(all.filter((id) => id.endsWith(':Complete') && id >= '2810017').sort()).toEqual(
      range(2810017, 2810024, 'Complete'),
    );
    expect(await run()).toMatchObject({ changes: 0 });
    expect(events.accepted).toHaveLength(22);

    const logged = logLines.join('\n');
    const secret = await demoSecret();
    for (const value of [secret.iam!.secretKey, secret.apiKey!, FAKE_AWS.AWS_SECRET_ACCESS_KEY]) {
      expect(logged).not.toContain(value);
    }
    expect(logged).not.toMatch(/\n\s+at /);
  });

  describe('with its state in DynamoDB (dynalite)', () => {
    let dynamo: Server;
    let client: DynamoDBClient;
    let tableName: string;

    beforeAll(async () => {
      dynamo = await startDynalite();
      client = new DynamoDBClient({
        endpoint: `http://127.0.0.1:${(dynamo.address() as AddressInfo).port}`,
        region: FAKE_AWS.AWS_REGION,
        credentials: { accessKeyId: 'AKIDLOOPBACKTEST', secretAccessKey: 'loopback' },
      });
    });
    afterAll(async () => {
      client.destroy();
      await new Promise((resolve) => dynamo.close(resolve));
    });
    beforeEach(async () => {
      tableName = `watcher-state-${randomUUID()}`;
      await createActiveTable(client, tables.createTableInput(tables.watcherState, tableName));
    });

    const announced = () =>
      logLines
        .map((line) => JSON.parse(line) as { message: string; changeId?: string })
        .filter((line) => line.message === 'scan job status changed')
        .map((line) => line.changeId);

    it('logs each change once, even when two runs overlap', async () => {
      const run = await loadWatcher(emulator, {
        WATCHER_STATE_TABLE: tableName,
        AWS_ENDPOINT_URL_DYNAMODB: `http://127.0.0.1:${(dynamo.address() as AddressInfo).port}`,
      });
      expect(await run()).toMatchObject({ baselined: 25 });
      const items = await client.send(new ScanCommand({ TableName: tableName }));
      expect(items.Count).toBe(25);

      emulator.scanJobs.advance(); // 5 complete, 9 start
      // Both runs list and load before either records: both see the 14 changes, and the
      // conditional claims give each change to one of them.
      const [a, b] = await Promise.all([run(), run()]);
      expect([a!.changes, b!.changes]).toEqual([14, 14]);
      expect(a!.emitted + b!.emitted).toBe(14);
      expect(a!.skipped + b!.skipped).toBe(14);
      const ids = announced();
      expect(new Set(ids).size).toBe(14);
      expect(ids).toHaveLength(14);

      emulator.scanJobs.advance(); // 9 complete
      expect(await run()).toMatchObject({ changes: 9, emitted: 9 });
      expect(await run()).toMatchObject({ changes: 0 });
      expect(announced()).toHaveLength(23);
    });
  });

  it('refuses to start when deployed without a state table', async () => {
    await expect(
      loadWatcher(emulator, { AWS_LAMBDA_FUNCTION_NAME: 'watchScanJobs', SECRETS_SOURCE: 'file' }),
    ).rejects.toThrow(/WATCHER_STATE_TABLE: required when deployed/);
    delete process.env.AWS_LAMBDA_FUNCTION_NAME;
  });
});

describe('the watcher walking several pages of the real list', () => {
  const emulator = emulatorForSuite();

  it('reads every page, and after a failure on page 2 the next run goes on from page 2', async () => {
    const config = loadConfig({
      ...emulatorEnv(emulator),
      UPSTREAM_TIMEOUT_MS: '2000',
      BULK_PAGE_SIZE: '10',
    });
    const runtime = createRuntime(config, { log: createLogger({}, () => {}) });
    const client = bulkScanJobsOf(runtime);
    let failAfterPage1 = false;
    const scanJobs = {
      listWalk: (plan: WalkPlan) => {
        const walk = client.listWalk(plan);
        return {
          first: (pageFor: (size: number) => number) => walk.first(pageFor),
          read: (pages: readonly number[]) => {
            // From page 2 on, every request of the list is reset by the emulator.
            if (failAfterPage1) emulator.faults.add({ kind: 'reset', times: 0 });
            return walk.read(pages);
          },
        };
      },
    };
    const sent: StatusChangeDetail[] = [];
    const file = path.join(await mkdtemp(path.join(tmpdir(), 'watcher-pages-')), 'state.json');
    const watcher = new ScanJobWatcher({
      scanJobs,
      store: fileStateStore(file),
      emitter: {
        description: 'test',
        emit: async (details) => {
          sent.push(...details);
          return [];
        },
      },
    });

    expect(await watcher.run(testCall())).toMatchObject({ pages: 3, jobs: 25, baselined: 25 });
    const lists = () =>
      emulator.requests.filter((r) => r.url.startsWith('/api/v1/jobs?')).map((r) => r.url);
    expect(lists()).toEqual([
      '/api/v1/jobs?page=1&limit=10',
      '/api/v1/jobs?page=2&limit=10',
      '/api/v1/jobs?page=3&limit=10',
    ]);

    emulator.scanJobs.advance(); // 14 changes: 2810012-25, newest first on pages 1 and 2
    failAfterPage1 = true;
    await expect(watcher.run(testCall())).rejects.toThrow(/could not be read/);
    // Page 1 (2810025-16) was read: its changes went out, and only those.
    expect(changeIds(sent).sort()).toEqual(
      [...range(2810017, 2810025, 'Progress'), '2810016:Complete'].sort(),
    );
    emulator.faults.clear();
    failAfterPage1 = false;
    emulator.requests.length = 0;
    expect(await watcher.run(testCall())).toMatchObject({ pages: 3, complete: true });
    // From its cursor round the list: pages 2 and 3, then page 1.
    expect(lists()).toEqual([
      '/api/v1/jobs?page=2&limit=10',
      '/api/v1/jobs?page=3&limit=10',
      '/api/v1/jobs?page=1&limit=10',
    ]);
    expect(new Set(changeIds(sent)).size).toBe(14);
    expect(sent).toHaveLength(14);
  });
});
