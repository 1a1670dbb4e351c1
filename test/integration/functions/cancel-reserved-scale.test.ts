/**
 * POST /jobs/cancel-reserved with work that grows: hundreds and thousands of reserved jobs
 * against the emulator with a round-trip latency, the real handler and middy stack. Time budgets
 * are the Lambda context's remaining time, shortened where a case is about running out of it.
 */
import type { Context } from 'aws-lambda';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { type Emulator, type ScanJobRecord, syntheticScanJobs } from '../../../emulator/index.ts';
import { jobRoutes } from '../../../lib/http/routes/jobs.ts';
import { FUNCTIONS } from '../../../sls/functions.ts';
import { startTestEmulator } from '../../helpers/emulator.ts';
import { httpEvent, jsonBody, lambdaContext } from '../../helpers/lambda.ts';
import { captureLogLines } from '../../helpers/logs.ts';
import { emulatorEnv, loadHandlers, SCAN_FUNCTIONS } from '../../helpers/platform.ts';

interface CancelReservedAnswer {
  cancelled: string[];
  failed: { instanceNo: string; error: { errorCode: string; message: string } }[];
  remaining: string[];
  complete: boolean;
}

const LOAD_SEARCH = '{"searchType":"url","searchKeyword":"load.example.com"}';
/** API Gateway's integration limit, and the function's timeout (sls/functions.ts). */
const FUNCTION_TIMEOUT_MS = FUNCTIONS[jobRoutes.cancelReservedJobs.function]!.timeout * 1000;

const reservedIds = (emulator: Emulator) =>
  emulator.scanJobs
    .list()
    .filter((job) => job.status === 'Reservation')
    .map((job) => job.instanceNo);
const requestsTo = (emulator: Emulator, method: string, suffix: string) =>
  emulator.requests.filter((r) => r.method === method && r.url.endsWith(suffix));

/**
 * Handlers load one at a time (each in a fresh module graph, with its emulator's environment
 * read as it loads): the two long walks below run side by side, each with its own.
 */
let loading: Promise<unknown> = Promise.resolve();

async function cancelReservedIn(emulator: Emulator, extra: Record<string, string> = {}) {
  const loaded = loading.then(() =>
    loadHandlers(emulatorEnv(emulator, extra), { cancelReserved: SCAN_FUNCTIONS.cancelReserved }),
  );
  loading = loaded.catch(() => undefined);
  const { cancelReserved } = await loaded;
  return async (context: Context = lambdaContext(FUNCTION_TIMEOUT_MS)) => {
    const result = await cancelReserved(
      httpEvent('jobs-cancel-reserved.json', { body: LOAD_SEARCH }),
      context,
    );
    return { status: result.statusCode, body: jsonBody(result) as CancelReservedAnswer };
  };
}

/** The walk's own summary line (cancel-reserved done / stopped short). */
const walkLine = (lines: string[]) =>
  lines
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .find((line) => String(line.message).startsWith('cancel-reserved'));

describe.concurrent('cancel-reserved at 50 ms a call', () => {
  let emulator: Emulator;
  let call: Awaited<ReturnType<typeof cancelReservedIn>>;
  beforeAll(async () => {
    emulator = await startTestEmulator({
      latencyMs: 50,
      scanJobs: () => syntheticScanJobs({ count: 1000, reserved: 400 }),
    });
    call = await cancelReservedIn(emulator);
  });
  beforeEach(() => emulator.reset());
  afterEach(() => vi.restoreAllMocks());
  afterAll(() => emulator.close());

  it('cancels 400 reserved jobs in one call, well inside the 30 s of API Gateway, and a second call finds nothing', async () => {
    const reserved = reservedIds(emulator);
    expect(reserved).toHaveLength(400);
    const { status, body } = await call();
    expect(status).toBe(200);
    expect(body.complete).toBe(true);
    expect(body.failed).toEqual([]);
    expect(body.remaining).toEqual([]);
    expect([...body.cancelled].sort()).toEqual([...reserved].sort());
    expect(reservedIds(emulator)).toEqual([]);
    // Pages of 100 (10 for 1,000 jobs), each read once; one cancel per job, never repeated.
    const searches = requestsTo(emulator, 'POST', '/search');
    expect(searches.map((r) => JSON.parse(r.body ?? '{}').limit)).toEqual(
      Array.from({ length: 10 }, () => 100),
    );
    expect(requestsTo(emulator, 'PATCH', '/cancel')).toHaveLength(400);

    // A second call finds nothing left to do.
    emulator.requests.length = 0;
    const again = await call();
    expect(again.body).toEqual({ cancelled: [], failed: [], remaining: [], complete: true });
    expect(requestsTo(emulator, 'PATCH', '/cancel')).toHaveLength(0);
  });
});

describe.concurrent('cancel-reserved when the time cannot cover the work', () => {
  let emulator: Emulator;
  let call: Awaited<ReturnType<typeof cancelReservedIn>>;
  beforeAll(async () => {
    emulator = await startTestEmulator({
      latencyMs: 120,
      scanJobs: () => syntheticScanJobs({ count: 3000, reserved: 3000 }),
    });
    call = await cancelReservedIn(emulator);
  });
  afterAll(() => emulator.close());

  /**
   * A function whose time runs out by the work it does, not by the clock: 60 s at first, and
   * 500 ms less for every cancel sent. It runs out after about a hundred cancels however busy
   * the machine is, so that what is tested is what the walk does when time runs out.
   */
  const runningOutByWork = (): Context => {
    const before = requestsTo(emulator, 'PATCH', '/cancel').length;
    const sent = () => requestsTo(emulator, 'PATCH', '/cancel').length - before;
    return {
      ...lambdaContext(),
      getRemainingTimeInMillis: () => Math.max(60_000 - 500 * sent(), 0),
    };
  };

  it('answers 200 with what remains, complete false, and a second call goes on where the first stopped', async () => {
    const reserved = new Set(reservedIds(emulator));
    expect(reserved.size).toBe(3000);
    // The walk reads every page, then cancels until the time is up.
    const first = await call(runningOutByWork());
    expect(first.status).toBe(200);
    expect(first.body.complete).toBe(false);
    const { cancelled, failed, remaining } = first.body;
    expect(cancelled.length).toBeGreaterThan(0);
    expect(remaining.length).toBeGreaterThan(0);
    // Every reserved job is accounted for exactly once, and nothing else is.
    const failedIds = failed.map((f) => f.instanceNo);
    const accounted = [...cancelled, ...failedIds, ...remaining];
    expect(accounted).toHaveLength(3000);
    expect(new Set(accounted)).toEqual(reserved);
    // What it says is what happened: the cancelled ones are cancelled, the remaining ones not.
    for (const id of cancelled) expect(emulator.scanJobs.get(id)?.status).toBe('Cancel');
    for (const id of remaining) expect(emulator.scanJobs.get(id)?.status).toBe('Reservation');
    const patched = requestsTo(emulator, 'PATCH', '/cancel').map((r) => r.url.split('/')[4]);
    expect(new Set(patched)).toEqual(new Set([...cancelled, ...failedIds]));

    // The second call finds only what is still reserved, and goes on with it.
    const second = await call(runningOutByWork());
    expect(second.status).toBe(200);
    const again = second.body;
    expect(again.cancelled.length).toBeGreaterThan(0);
    const stillReserved = new Set([...remaining, ...failedIds]);
    for (const id of [...again.cancelled, ...again.remaining]) {
      expect(stillReserved.has(id)).toBe(true);
    }
    expect(
      new Set([...again.cancelled, ...again.failed.map((f) => f.instanceNo), ...again.remaining]),
    ).toEqual(new Set(reservedIds(emulator).concat(again.cancelled)));
    const patchedTwice = requestsTo(emulator, 'PATCH', '/cancel').map((r) => r.url.split('/')[4]);
    expect(patchedTwice.length).toBe(new Set(patchedTwice).size);
  });
});

describe('cancel-reserved under the gateway throttle', () => {
  let emulator: Emulator;
  let logLines: string[];
  beforeAll(async () => {
    emulator = await startTestEmulator({ latencyMs: 10 });
  });
  beforeEach(() => {
    emulator.reset();
    emulator.scanJobs.replace(syntheticScanJobs({ count: 300, reserved: 120 }));
    logLines = captureLogLines();
  });
  afterEach(() => vi.restoreAllMocks());
  afterAll(() => emulator.close());

  it('slows down for a 429 burst mid-walk and loses nothing', async () => {
    const call = await cancelReservedIn(emulator);
    const reserved = reservedIds(emulator);
    const answer = call();
    // Mid-walk: once 20 cancels have arrived, the gateway throttles the next 40 PATCHes.
    while (requestsTo(emulator, 'PATCH', '/cancel').length < 20) {
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    emulator.faults.add({
      kind: 'status',
      status: 429,
      errorCode: '410',
      times: 40,
      match: { method: 'PATCH' },
    });
    const { status, body } = await answer;
    expect(status).toBe(200);
    expect(body).toMatchObject({ failed: [], remaining: [], complete: true });
    expect([...body.cancelled].sort()).toEqual([...reserved].sort());
    expect(reservedIds(emulator)).toEqual([]);
    const line = walkLine(logLines);
    expect(line).toMatchObject({ message: 'cancel-reserved done', cancelled: 120 });
    expect(line?.throttles).toBe(40);
    // The pool came down from 8 calls at once.
    expect(line?.lowestCancelConcurrency).toBeLessThan(8);
  });

  it('keeps under a gateway rate limit without losing a job', async () => {
    await emulator.close();
    emulator = await startTestEmulator({ latencyMs: 10, rateLimitPerSecond: 60 });
    emulator.scanJobs.replace(syntheticScanJobs({ count: 300, reserved: 120 }));
    const call = await cancelReservedIn(emulator);
    const { status, body } = await call();
    expect(status).toBe(200);
    expect(body).toMatchObject({ failed: [], remaining: [], complete: true });
    expect(body.cancelled).toHaveLength(120);
    expect(reservedIds(emulator)).toEqual([]);
  });
});

describe('cancel-reserved with what the platform sends back', () => {
  let emulator: Emulator;
  beforeAll(async () => {
    emulator = await startTestEmulator({ maxPageSize: 50 });
  });
  beforeEach(() => emulator.reset());
  afterAll(() => emulator.close());

  it('asks for pages of 20 when the platform refuses 100, and keeps to 20 in the container', async () => {
    emulator.scanJobs.replace(syntheticScanJobs({ count: 90, reserved: 30 }));
    const call = await cancelReservedIn(emulator);
    const first = await call();
    expect(first.body).toMatchObject({ complete: true, failed: [], remaining: [] });
    expect(first.body.cancelled).toHaveLength(30);
    const limits = () =>
      requestsTo(emulator, 'POST', '/search').map((r) => JSON.parse(r.body ?? '{}').limit);
    // Refused at 100, read again at 20: pages 1-5 of 90 jobs.
    expect(limits()).toEqual([100, 20, 20, 20, 20, 20]);
    emulator.requests.length = 0;
    await call();
    expect(limits()).toEqual([20, 20, 20, 20, 20]);
  });

  it('skips and reports an id outside the job id pattern, and never sends it', async () => {
    const jobs = syntheticScanJobs({ count: 10, reserved: 10 });
    const odd = (instanceNo: string): ScanJobRecord => ({ ...jobs[0]!, instanceNo });
    emulator.scanJobs.replace([...jobs, odd('..'), odd('a/b'), odd('.')]);
    const call = await cancelReservedIn(emulator);
    const { status, body } = await call();
    expect(status).toBe(200);
    expect(body.cancelled).toHaveLength(10);
    expect(body.failed.map((f) => f.instanceNo).sort()).toEqual(['.', '..', 'a/b']);
    expect(body.failed[0]?.error).toMatchObject({ errorCode: '900' });
    expect(body.complete).toBe(true);
    const patched = requestsTo(emulator, 'PATCH', '/cancel').map((r) => r.url);
    expect(patched).toHaveLength(10);
    expect(patched.every((url) => /^\/api\/v1\/jobs\/[0-9]+\/cancel$/.test(url))).toBe(true);
  });
});
