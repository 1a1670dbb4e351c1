import {
  RESULT_BUTTON_BY_STATUS,
  type ScanJobRecord,
  type ScanJobStatus,
  STOPPED_DESCRIPTION,
} from './types.ts';

interface DemoJobSeed {
  readonly instanceNo: string;
  readonly status: ScanJobStatus;
  readonly start_url: string;
  readonly memo: string;
  readonly start_date: string;
  readonly end_date?: string;
  /** Percent done, for jobs caught running or stopped. */
  readonly progress?: number;
}

/**
 * 25 jobs, oldest first, so that a list at the default limit spans two pages. Twelve target
 * demo.example.com (four of them reserved), to exercise a search that spans pages and has to
 * tell reserved jobs from the rest. Dates are fixed platform times.
 */
// biome-ignore format: one job per line reads as a table
const DEMO_JOB_SEEDS: readonly DemoJobSeed[] = [
  { instanceNo: '2810001', status: 'Complete', start_url: 'https://demo.example.com/', memo: 'initial baseline', start_date: '2026-09-01 02:00:00', end_date: '2026-09-01 03:12:45' },
  { instanceNo: '2810002', status: 'Complete', start_url: 'https://shop.example.net/', memo: 'quarterly audit', start_date: '2026-09-08 02:00:00', end_date: '2026-09-08 02:48:10' },
  { instanceNo: '2810003', status: 'Complete', start_url: 'https://demo.example.com/login', memo: 'login flow', start_date: '2026-09-15 02:00:00', end_date: '2026-09-15 03:05:33' },
  { instanceNo: '2810004', status: 'Stop', start_url: 'https://api.example.org/', memo: 'maintenance window', start_date: '2026-09-22 14:30:00', end_date: '2026-09-22 15:02:19', progress: 40 },
  { instanceNo: '2810005', status: 'Complete', start_url: 'https://blog.example.net/', memo: '주간 점검', start_date: '2026-09-29 02:00:00', end_date: '2026-09-29 02:41:07' },
  { instanceNo: '2810006', status: 'Complete', start_url: 'https://demo.example.com/admin', memo: 'admin pages', start_date: '2026-10-06 02:00:00', end_date: '2026-10-06 03:20:51' },
  { instanceNo: '2810007', status: 'Cancel', start_url: 'https://demo.example.com/old', memo: 'cancelled rerun', start_date: '2026-10-13 02:00:00' },
  { instanceNo: '2810008', status: 'Complete', start_url: 'https://shop.example.net/checkout', memo: 'checkout audit', start_date: '2026-10-20 02:00:00', end_date: '2026-10-20 02:55:02' },
  { instanceNo: '2810009', status: 'Complete', start_url: 'https://demo.example.com/', memo: 'nightly scan', start_date: '2026-10-27 02:00:00', end_date: '2026-10-27 03:01:18' },
  { instanceNo: '2810010', status: 'Complete', start_url: 'https://portal.example.org/', memo: '주간 점검', start_date: '2026-11-03 02:00:00', end_date: '2026-11-03 02:37:44' },
  { instanceNo: '2810011', status: 'Complete', start_url: 'https://demo.example.com/api', memo: 'nightly scan', start_date: '2026-11-10 02:00:00', end_date: '2026-11-10 03:14:09' },
  { instanceNo: '2810012', status: 'Progress', start_url: 'https://shop.example.net/', memo: 'release check', start_date: '2026-11-20 22:00:00', progress: 90 },
  { instanceNo: '2810013', status: 'Progress', start_url: 'https://demo.example.com/', memo: 'nightly scan', start_date: '2026-11-21 01:00:00', progress: 70 },
  { instanceNo: '2810014', status: 'Progress', start_url: 'https://portal.example.org/app', memo: 'release check', start_date: '2026-11-21 02:00:00', progress: 50 },
  { instanceNo: '2810015', status: 'Progress', start_url: 'https://demo.example.com/search', memo: 'nightly scan', start_date: '2026-11-21 03:00:00', progress: 35 },
  { instanceNo: '2810016', status: 'Progress', start_url: 'https://api.example.org/v2', memo: 'api regression', start_date: '2026-11-21 04:00:00', progress: 15 },
  { instanceNo: '2810017', status: 'Reservation', start_url: 'https://demo.example.com/', memo: 'nightly scan', start_date: '2026-11-28 02:00:00' },
  { instanceNo: '2810018', status: 'Reservation', start_url: 'https://shop.example.net/', memo: 'nightly scan', start_date: '2026-11-28 03:00:00' },
  { instanceNo: '2810019', status: 'Reservation', start_url: 'https://demo.example.com/cart', memo: 'nightly scan', start_date: '2026-11-29 02:00:00' },
  { instanceNo: '2810020', status: 'Reservation', start_url: 'https://portal.example.org/', memo: 'weekend scan', start_date: '2026-11-29 03:00:00' },
  { instanceNo: '2810021', status: 'Reservation', start_url: 'https://demo.example.com/login', memo: 'nightly scan', start_date: '2026-12-05 02:00:00' },
  { instanceNo: '2810022', status: 'Reservation', start_url: 'https://blog.example.net/', memo: '주간 점검', start_date: '2026-12-05 03:00:00' },
  { instanceNo: '2810023', status: 'Reservation', start_url: 'https://demo.example.com/admin', memo: 'weekend scan', start_date: '2026-12-06 02:00:00' },
  { instanceNo: '2810024', status: 'Reservation', start_url: 'https://api.example.org/', memo: 'nightly scan', start_date: '2026-12-06 03:00:00' },
  { instanceNo: '2810025', status: 'Reservation', start_url: 'https://shop.example.net/promo', memo: 'weekend scan', start_date: '2026-12-12 02:00:00' },
];

/** A stable, made-up number of crawled pages per job. */
export function crawlCountOf(instanceNo: string): number {
  return 40 + (Number(instanceNo) % 37) * 3;
}

function scanCountOf(instanceNo: string, progress: number): number {
  return Math.floor((crawlCountOf(instanceNo) * progress) / 100);
}

function progressOf(seed: DemoJobSeed): number {
  if (seed.status === 'Complete') return 100;
  return seed.progress ?? 0;
}

function recordFromSeed(seed: DemoJobSeed): ScanJobRecord {
  const progress = progressOf(seed);
  const ran = seed.status !== 'Reservation' && seed.status !== 'Cancel';
  return {
    instanceNo: seed.instanceNo,
    memo: seed.memo,
    start_url: seed.start_url,
    start_date: seed.start_date,
    end_date: seed.end_date ?? null,
    status: seed.status,
    result_button: RESULT_BUTTON_BY_STATUS[seed.status],
    crawl_cnt: ran ? crawlCountOf(seed.instanceNo) : null,
    scan_cnt: ran ? scanCountOf(seed.instanceNo, progress) : null,
    rescan_button: null,
    result_desc: seed.status === 'Stop' ? STOPPED_DESCRIPTION : null,
    slave_data: null,
    progress,
  };
}

/** A fresh copy of the demo jobs, oldest first. */
export function demoScanJobs(): ScanJobRecord[] {
  return DEMO_JOB_SEEDS.map(recordFromSeed);
}
