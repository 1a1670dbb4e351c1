import { describe, expect, it } from 'vitest';
import type { ListedJob } from '../../../../lib/scan-jobs/schemas.ts';
import {
  chunksOf,
  detailOf,
  observedJobs,
  type RecordedJob,
  statusChanges,
} from '../../../../lib/watcher/changes.ts';

const job = (instanceNo: string | number, status: string | null, extra = {}): ListedJob => ({
  instanceNo,
  status,
  memo: `memo ${instanceNo}`,
  start_url: `https://example.com/${instanceNo}`,
  ...extra,
});
const recorded = (entries: Record<string, string>) =>
  new Map<string, RecordedJob>(
    Object.entries(entries).map(([id, status]) => [id, { status, updatedAt: 't' }]),
  );

describe('observedJobs', () => {
  it('keys jobs by instanceNo as text, keeps memo and start_url, drops records without status', () => {
    const jobs = observedJobs([[job(12, 'Progress'), job('13', null), job('14', '')]]);
    expect([...jobs.keys()]).toEqual(['12']);
    expect(jobs.get('12')).toEqual({
      instanceNo: '12',
      status: 'Progress',
      memo: 'memo 12',
      startUrl: 'https://example.com/12',
    });
  });

  it('takes the later sighting of a job listed on two pages, and null for non-text fields', () => {
    const jobs = observedJobs([
      [job('5', 'Reservation')],
      [job('5', 'Progress', { memo: 42, start_url: undefined })],
    ]);
    expect(jobs.get('5')).toEqual({
      instanceNo: '5',
      status: 'Progress',
      memo: null,
      startUrl: null,
    });
  });
});

describe('statusChanges', () => {
  it('finds changed and new jobs, oldest instanceNo first, and leaves the rest', () => {
    const observed = observedJobs([
      [job('100', 'Complete'), job('99', 'Progress'), job('9', 'Stop'), job('98', 'Cancel')],
    ]);
    const changes = statusChanges(
      observed,
      recorded({ '99': 'Progress', '100': 'Progress', '9': 'Progress', '7': 'Complete' }),
    );
    expect(changes.map((c) => [c.job.instanceNo, c.previousStatus, c.job.status])).toEqual([
      ['9', 'Progress', 'Stop'],
      ['98', null, 'Cancel'],
      ['100', 'Progress', 'Complete'],
    ]);
  });

  it('finds nothing when the view is current, and ignores jobs no longer listed', () => {
    const observed = observedJobs([[job('1', 'Complete')]]);
    expect(statusChanges(observed, recorded({ '1': 'Complete', '2': 'Progress' }))).toEqual([]);
  });
});

describe('detailOf', () => {
  const [change] = statusChanges(
    observedJobs([[job('7', 'Complete')]]),
    recorded({ '7': 'Progress' }),
  );

  it('has a deterministic changeId and the report path of a completed job', () => {
    const first = detailOf(change!, '2026-11-21T05:00:00.000Z');
    const again = detailOf(change!, '2026-11-21T05:05:00.000Z');
    expect(first).toEqual({
      changeId: '7:Complete',
      instanceNo: '7',
      previousStatus: 'Progress',
      status: 'Complete',
      memo: 'memo 7',
      start_url: 'https://example.com/7',
      observedAt: '2026-11-21T05:00:00.000Z',
      reportPath: '/jobs/7/report',
    });
    expect(again.changeId).toBe(first.changeId);
  });

  it('has no report path before the job completes', () => {
    const [started] = statusChanges(observedJobs([[job('8', 'Progress')]]), recorded({}));
    expect(detailOf(started!, 'now')).not.toHaveProperty('reportPath');
    expect(detailOf(started!, 'now').previousStatus).toBeNull();
  });
});

it('chunksOf splits in order with a short last chunk', () => {
  expect(chunksOf([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
  expect(chunksOf([], 10)).toEqual([]);
});
