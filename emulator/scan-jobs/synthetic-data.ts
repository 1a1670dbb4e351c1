/**
 * Many scan jobs at once, for tests and benchmarks of work that grows (a search with thousands
 * of reserved jobs, a watcher over ten thousand): deterministic, so that two runs see the same
 * list.
 */
import { formatPlatformDate } from './dates.ts';
import { crawlCountOf } from './demo-data.ts';
import { RESULT_BUTTON_BY_STATUS, type ScanJobRecord, type ScanJobStatus } from './types.ts';

export interface SyntheticJobsOptions {
  /** How many jobs. */
  readonly count: number;
  /** How many of them are in Reservation, spread evenly over the list. Default a quarter. */
  readonly reserved?: number;
  /** The first instanceNo; the others follow it. Default 3000001 (the demo set ends at 2810025). */
  readonly firstInstanceNo?: number;
  /** Every job's start_url: a search by url finds them all. Default https://load.example.com/. */
  readonly startUrl?: string;
  /** Every job's memo. Default "load test". */
  readonly memo?: string;
}

/** Statuses of the jobs that are not reserved, in turn. */
const OTHER_STATUSES: readonly ScanJobStatus[] = ['Complete', 'Complete', 'Progress', 'Complete'];
/** Mid-November 2026, platform time: the synthetic jobs start one minute apart from here. */
const FIRST_START_MS = Date.UTC(2026, 10, 15, 0, 0, 0);

/** `count` jobs, oldest first, `reserved` of them in Reservation. */
export function syntheticScanJobs(options: SyntheticJobsOptions): ScanJobRecord[] {
  const { count } = options;
  const reserved = Math.min(options.reserved ?? Math.floor(count / 4), count);
  const first = options.firstInstanceNo ?? 3_000_001;
  const records: ScanJobRecord[] = [];
  for (let index = 0; index < count; index++) {
    // Job i is reserved when the running share of reserved jobs moves on at i: evenly spread.
    const isReserved =
      Math.floor(((index + 1) * reserved) / count) > Math.floor((index * reserved) / count);
    const status = isReserved ? 'Reservation' : OTHER_STATUSES[index % OTHER_STATUSES.length]!;
    records.push(syntheticRecord(String(first + index), status, index, options));
  }
  return records;
}

function syntheticRecord(
  instanceNo: string,
  status: ScanJobStatus,
  index: number,
  options: SyntheticJobsOptions,
): ScanJobRecord {
  const startMs = FIRST_START_MS + index * 60_000;
  const crawled = crawlCountOf(instanceNo);
  const progress = status === 'Complete' ? 100 : status === 'Progress' ? 50 : 0;
  const ran = status === 'Complete' || status === 'Progress';
  return {
    instanceNo,
    memo: options.memo ?? 'load test',
    start_url: options.startUrl ?? 'https://load.example.com/',
    start_date: formatPlatformDate(startMs),
    end_date: status === 'Complete' ? formatPlatformDate(startMs + 45 * 60_000) : null,
    status,
    result_button: RESULT_BUTTON_BY_STATUS[status],
    crawl_cnt: ran ? crawled : null,
    scan_cnt: ran ? Math.floor((crawled * progress) / 100) : null,
    rescan_button: null,
    result_desc: null,
    slave_data: null,
    progress,
  };
}
