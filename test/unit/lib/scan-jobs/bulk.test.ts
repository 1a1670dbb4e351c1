/**
 * The scan job work that grows, on the container's scan job client, against the emulator.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../../lib/core/config.ts';
import { createLogger } from '../../../../lib/core/log.ts';
import { WalkPlan } from '../../../../lib/core/walk-plan.ts';
import { createRuntime } from '../../../../lib/runtime.ts';
import { bulkScanJobsOf } from '../../../../lib/scan-jobs/bulk.ts';
import { testCall } from '../../../helpers/call-context.ts';
import { emulatorForSuite } from '../../../helpers/emulator.ts';
import { emulatorEnv } from '../../../helpers/platform.ts';

const quiet = createLogger({}, () => {});

describe('BulkScanJobs against the emulator', () => {
  const emulator = emulatorForSuite();
  const runtime = () =>
    createRuntime(loadConfig(emulatorEnv(emulator, { BULK_PAGE_SIZE: '10' })), { log: quiet });

  it('walks every page of the job list, at the configured page size, with signed calls', async () => {
    const walk = bulkScanJobsOf(runtime()).listWalk(new WalkPlan(testCall(), { reserveMs: 0 }));
    const first = await walk.first();
    expect(first).toMatchObject({ page: 1, pageCount: 3, pageSize: 10 });
    const rest = await walk.read([2, 3]);
    const ids = [first, ...rest.pages].flatMap((page) => page.jobs.map((job) => job.instanceNo));
    expect(new Set(ids).size).toBe(25);
    expect(emulator.requests.map((r) => r.url).sort()).toEqual([
      '/api/v1/jobs?page=1&limit=10',
      '/api/v1/jobs?page=2&limit=10',
      '/api/v1/jobs?page=3&limit=10',
    ]);
  });

  it('cancels every reserved job a search finds, and only those', async () => {
    const result = await bulkScanJobsOf(runtime()).cancelReserved(
      { searchType: 'memo', searchKeyword: 'weekend scan' },
      testCall(),
    );
    expect(result).toEqual({
      cancelled: expect.arrayContaining(['2810020', '2810023', '2810025']),
      failed: [],
      remaining: [],
      complete: true,
    });
    expect('cancelled' in result && result.cancelled).toHaveLength(3);
    for (const id of ['2810020', '2810023', '2810025']) {
      expect(emulator.scanJobs.get(id)?.status).toBe('Cancel');
    }
    // The other reserved jobs are untouched.
    expect(emulator.scanJobs.get('2810017')?.status).toBe('Reservation');
    const cancels = emulator.requests.filter((r) => r.method === 'PATCH').map((r) => r.url);
    expect(cancels.sort()).toEqual([
      '/api/v1/jobs/2810020/cancel',
      '/api/v1/jobs/2810023/cancel',
      '/api/v1/jobs/2810025/cancel',
    ]);
  });

  it('answers a dry run with what it would cancel, and cancels nothing', async () => {
    const result = await bulkScanJobsOf(runtime()).cancelReserved(
      { searchType: 'memo', searchKeyword: 'weekend scan', dryRun: true },
      testCall(),
    );
    expect(result).toMatchObject({ dryRun: true, failed: [], complete: true });
    expect('reserved' in result && [...result.reserved].sort()).toEqual([
      '2810020',
      '2810023',
      '2810025',
    ]);
    expect(emulator.requests.filter((r) => r.method === 'PATCH')).toEqual([]);
    expect(emulator.scanJobs.get('2810020')?.status).toBe('Reservation');
  });

  it('refuses, sending no cancel, when more jobs are reserved than the caller expects', async () => {
    await expect(
      bulkScanJobsOf(runtime()).cancelReserved(
        { searchType: 'memo', searchKeyword: 'weekend scan', expectAtMost: 2 },
        testCall(),
      ),
    ).rejects.toMatchObject({ status: 409 });
    expect(emulator.requests.filter((r) => r.method === 'PATCH')).toEqual([]);
  });

  it('is one per container', () => {
    const container = runtime();
    expect(bulkScanJobsOf(container)).toBe(bulkScanJobsOf(container));
  });
});
