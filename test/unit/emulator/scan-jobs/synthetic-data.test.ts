import { describe, expect, it } from 'vitest';
import { syntheticScanJobs } from '../../../../emulator/scan-jobs/synthetic-data.ts';
import type { ScanJobRecord } from '../../../../emulator/scan-jobs/types.ts';

describe('syntheticScanJobs', () => {
  it('makes count jobs, oldest first, with the reserved ones spread over the list', () => {
    const jobs = syntheticScanJobs({ count: 1000, reserved: 100 });
    expect(jobs).toHaveLength(1000);
    expect(jobs[0]?.instanceNo).toBe('3000001');
    expect(jobs[999]?.instanceNo).toBe('3001000');
    const reserved = jobs.filter((job) => job.status === 'Reservation');
    expect(reserved).toHaveLength(100);
    // One in every ten: each block of 100 jobs holds 10 reserved ones.
    for (let block = 0; block < 10; block++) {
      const slice = jobs.slice(block * 100, block * 100 + 100);
      expect(slice.filter((job) => job.status === 'Reservation')).toHaveLength(10);
    }
    expect(new Set(jobs.map((job) => job.instanceNo)).size).toBe(1000);
    expect(jobs.every((job) => job.start_url === 'https://load.example.com/')).toBe(true);
  });

  it('is deterministic, reserves a quarter by default, and copes with all or none', () => {
    expect(syntheticScanJobs({ count: 40 })).toEqual(syntheticScanJobs({ count: 40 }));
    const count = (jobs: ScanJobRecord[]) => jobs.filter((j) => j.status === 'Reservation').length;
    expect(count(syntheticScanJobs({ count: 40 }))).toBe(10);
    expect(count(syntheticScanJobs({ count: 7, reserved: 7 }))).toBe(7);
    expect(count(syntheticScanJobs({ count: 7, reserved: 0 }))).toBe(0);
  });
});
