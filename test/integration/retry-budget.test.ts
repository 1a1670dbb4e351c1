/**
 * One retry budget per container, through a real function: GET /jobs (an idempotent call the
 * retry table retries on 503) against the emulator while the platform browns out. The calls
 * are counted at the emulator. (The budget's own figure, 1,000 calls reaching an upstream at
 * most 1,100 times, is held with the client alone: test/unit/lib/upstream/retry-budget.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Emulator } from '../../emulator/index.js';
import { httpEvent, lambdaContext } from '../helpers/lambda.js';
import { captureLogLines } from '../helpers/logs.js';
import {
  emulatorEnv,
  loadHandlers,
  SCAN_FUNCTIONS,
  startTestEmulator,
} from '../helpers/platform.js';

describe('the retry budget of a container, during an outage', () => {
  let emulator: Emulator;
  beforeAll(async () => {
    emulator = await startTestEmulator();
  });
  afterAll(async () => {
    await emulator.close();
  });

  it('lets 300 calls reach the platform at most 400 times (500 tokens pay for 100 retries), and recovers without a restart', async () => {
    const { list } = await loadHandlers(emulatorEnv(emulator), { list: SCAN_FUNCTIONS.list });
    emulator.faults.add({ kind: 'status', status: 503, errorCode: '500', times: 0 });
    const lines = captureLogLines();
    const statuses: number[] = [];
    for (let i = 0; i < 300; i++) {
      statuses.push((await list(httpEvent('jobs-list.json'), lambdaContext())).statusCode ?? 0);
    }
    expect(statuses.every((status) => status === 503)).toBe(true);
    const reached = emulator.requests.filter((r) => r.url.startsWith('/api/v1/jobs')).length;
    expect(reached).toBeGreaterThanOrEqual(300);
    expect(reached).toBeLessThanOrEqual(400);
    const refused = lines
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .reduce((sum, line) => sum + Number(line.UpstreamRetriesRefused ?? 0), 0);
    expect(refused).toBeGreaterThan(100);

    // The platform recovers: every call succeeds at once, in the same container.
    emulator.faults.clear();
    for (let i = 0; i < 20; i++) {
      expect((await list(httpEvent('jobs-list.json'), lambdaContext())).statusCode).toBe(200);
    }
    vi.restoreAllMocks();
  });
});
