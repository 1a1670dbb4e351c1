/**
 * The scheduled watcher over 10,000 scan jobs at 50 ms a call: the handler as Lambda loads it,
 * its view in DynamoDB (dynalite, the real client), changes to the log. A pass finishes inside
 * the function's 60 s, announces each change once, costs DynamoDB calls by the changes, and a
 * pass cut short leaves a cursor the next one goes on from.
 */
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { Context, ScheduledEvent } from 'aws-lambda';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { type Emulator, syntheticScanJobs } from '../../../emulator/index.ts';
import { WATCHER_FUNCTION, type WatchSummary } from '../../../lib/watcher/watcher.ts';
import { createActiveTable, startDynalite } from '../../../scripts/local-ledger.ts';
import { FUNCTIONS } from '../../../sls/functions.ts';
import * as tables from '../../../sls/resolvers/tables.ts';
import { LOOPBACK_AWS } from '../../helpers/aws.ts';
import { startTestEmulator } from '../../helpers/emulator.ts';
import { lambdaContext, sampleEvent } from '../../helpers/lambda.ts';
import { captureLogLines } from '../../helpers/logs.ts';
import { emulatorEnv, loadHandlers } from '../../helpers/platform.ts';

type WatchHandler = (event: ScheduledEvent, context: Context) => Promise<WatchSummary>;

const JOBS = 10_000;
/** The watcher's timeout (sls/functions.ts). */
const FUNCTION_TIMEOUT_MS = FUNCTIONS[WATCHER_FUNCTION]!.timeout * 1000;
const FAKE_AWS = LOOPBACK_AWS;

const scheduledEvent = () => sampleEvent<ScheduledEvent>('schedule.json');

describe('the watcher over 10,000 jobs at 50 ms a call', () => {
  let emulator: Emulator;
  let dynamo: Server;
  let run: (context?: Context) => Promise<WatchSummary>;
  let logLines: string[];

  const announced = () =>
    logLines
      .map((line) => JSON.parse(line) as { message: string; changeId?: string })
      .filter((line) => line.message === 'scan job status changed')
      .map((line) => line.changeId as string);
  const listRequests = () => emulator.requests.filter((r) => r.url.startsWith('/api/v1/jobs?'));
  /** Every `step`-th reserved job cancelled: changes spread over the whole list. */
  const cancelEvery = (step: number, offset: number) => {
    const reserved = emulator.scanJobs.list().filter((job) => job.status === 'Reservation');
    const picked = reserved.filter((_job, index) => index % step === offset);
    for (const job of picked) expect(emulator.scanJobs.cancel(job.instanceNo)).toBe('done');
    return picked.map((job) => `${job.instanceNo}:Cancel`);
  };

  beforeAll(async () => {
    emulator = await startTestEmulator({
      latencyMs: 50,
      scanJobs: () => syntheticScanJobs({ count: JOBS, reserved: 2500 }),
    });
    dynamo = await startDynalite();
    const endpoint = `http://127.0.0.1:${(dynamo.address() as AddressInfo).port}`;
    const client = new DynamoDBClient({
      endpoint,
      region: FAKE_AWS.AWS_REGION,
      credentials: { accessKeyId: 'AKIDLOOPBACKTEST', secretAccessKey: 'loopback' },
    });
    const tableName = `watcher-scale-${randomUUID()}`;
    await createActiveTable(client, tables.createTableInput(tables.watcherState, tableName));
    client.destroy();
    for (const name of ['WATCHER_STATE_FILE', 'EVENT_BUS_NAME']) delete process.env[name];
    const { watch } = await loadHandlers(
      emulatorEnv(emulator, {
        ...FAKE_AWS,
        WATCHER_STATE_TABLE: tableName,
        AWS_ENDPOINT_URL_DYNAMODB: endpoint,
      }),
      { watch: 'functions/watcher/scan.ts' },
    );
    run = (context = lambdaContext(FUNCTION_TIMEOUT_MS)) =>
      (watch as unknown as WatchHandler)(scheduledEvent(), context);
  });
  beforeEach(() => {
    vi.restoreAllMocks();
    logLines = captureLogLines();
    emulator.requests.length = 0;
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    await emulator.close();
    await new Promise((resolve) => dynamo.close(resolve));
  });

  it('records the baseline of 10,000 jobs in one pass, in batches', async () => {
    const summary = await run();
    expect(summary).toMatchObject({
      pages: 100, // 100 jobs a page
      jobs: JOBS,
      baselined: JOBS,
      emitted: 0,
      complete: true,
    });
    // 400 batches of 25, and the cursor that marked the baseline begun, then forgotten.
    expect(summary.stateWrites).toBe(402);
    expect(listRequests()).toHaveLength(100);
    expect(announced()).toEqual([]);
  });

  it('announces each change once, at DynamoDB calls that grow with the changes', async () => {
    const changed = cancelEvery(10, 0); // 250 jobs across the list
    const summary = await run();
    expect(summary).toMatchObject({ complete: true, changes: 250, emitted: 250, skipped: 0 });
    expect([...announced()].sort()).toEqual([...changed].sort());
    // One Scan loads the 10,000 recorded jobs; a claim and a record per change.
    expect(summary.stateReads).toBe(1);
    expect(summary.stateWrites).toBe(500);

    logLines.length = 0;
    const quiet = await run();
    expect(quiet).toMatchObject({ complete: true, changes: 0, stateReads: 1, stateWrites: 0 });
    expect(announced()).toEqual([]);
  });

  it('keeps a cursor when the time runs out, and the next pass goes on from it', async () => {
    const changed = cancelEvery(10, 1);
    // A context whose time runs short once 40 pages have been asked for: the second segment
    // (pages 33-64) is read, but its changes cannot be announced in the time left.
    const short = lambdaContext(FUNCTION_TIMEOUT_MS);
    short.getRemainingTimeInMillis = () => (listRequests().length >= 40 ? 5000 : 60_000);
    const cut = await run(short);
    expect(cut.complete).toBe(false);
    const firstPass = announced();
    expect(firstPass.length).toBeGreaterThan(0);
    expect(firstPass.length).toBeLessThan(changed.length);
    expect(logLines.some((line) => line.includes('stopped short'))).toBe(true);

    emulator.requests.length = 0;
    const resumed = await run();
    expect(resumed.complete).toBe(true);
    // It starts at the cursor (page 33), not at page 1.
    expect(listRequests()[0]?.url).toBe('/api/v1/jobs?page=33&limit=100');
    expect(listRequests()).toHaveLength(100);
    const all = announced();
    expect(all).toHaveLength(changed.length);
    expect(new Set(all)).toEqual(new Set(changed));
  });
});
