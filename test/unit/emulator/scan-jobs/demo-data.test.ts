import { describe, expect, it } from 'vitest';
import { demoScanJobs, type ScanJobRecord } from '../../../../emulator/index.ts';

describe('demo scan jobs', () => {
  const jobs = demoScanJobs();
  const withStatus = (status: ScanJobRecord['status']) =>
    jobs.filter((job) => job.status === status);

  it('has 25 jobs with unique ids, enough for several pages', () => {
    expect(jobs).toHaveLength(25);
    expect(new Set(jobs.map((job) => job.instanceNo)).size).toBe(25);
  });

  it('has reservations on demo.example.com and on other hosts', () => {
    const reserved = withStatus('Reservation');

    expect(
      reserved
        .filter((job) => job.start_url.includes('demo.example.com'))
        .map((job) => job.instanceNo),
    ).toEqual(['2810017', '2810019', '2810021', '2810023']);
    expect(
      reserved.filter((job) => !job.start_url.includes('demo.example.com')).length,
    ).toBeGreaterThanOrEqual(2);
  });

  it('has several running and completed jobs, one cancelled and one stopped', () => {
    expect(withStatus('Progress').length).toBeGreaterThanOrEqual(3);
    expect(withStatus('Complete').length).toBeGreaterThanOrEqual(3);
    expect(withStatus('Cancel')).toHaveLength(1);
    expect(withStatus('Stop')).toHaveLength(1);
  });

  it('sets end_date only on jobs that ran to an end', () => {
    for (const job of jobs) {
      expect(job.end_date === null).toBe(!['Complete', 'Stop'].includes(job.status));
    }
  });

  it('is the same every time', () => {
    expect(demoScanJobs()).toEqual(jobs);
  });
});
