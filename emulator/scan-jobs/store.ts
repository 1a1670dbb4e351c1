import { formatPlatformDate } from './dates.ts';
import { crawlCountOf, demoScanJobs } from './demo-data.ts';
import {
  RESULT_BUTTON_BY_STATUS,
  type ScanJobRecord,
  type ScanJobStatus,
  STOPPED_DESCRIPTION,
} from './types.ts';

export type TransitionOutcome = 'done' | 'not-found' | 'wrong-phase';

/** The scan jobs behind the emulated API. Every read returns copies. */
export interface ScanJobStore {
  /** All jobs, newest first (by instanceNo, which grows with creation). */
  list(): ScanJobRecord[];
  /**
   * One page of the jobs that `matches` keeps, newest first, and how many it keeps in all:
   * what a list or search answers, without copying every job for each page.
   */
  page(
    matches: ((record: ScanJobRecord) => boolean) | undefined,
    offset: number,
    limit: number,
  ): { records: ScanJobRecord[]; total: number };
  get(instanceNo: string): ScanJobRecord | undefined;
  /**
   * Moves one job, or every job still moving, one phase on (Reservation -> Progress ->
   * Complete); Cancel, Stop and Complete stay. Returns the jobs that moved. Throws on an
   * unknown instanceNo.
   */
  advance(instanceNo?: string): ScanJobRecord[];
  /** Reservation -> Cancel. */
  cancel(instanceNo: string): TransitionOutcome;
  /** Progress -> Stop. */
  stop(instanceNo: string): TransitionOutcome;
  /** Back to the demo set (or the store's own seed). */
  reset(): void;
  /** Replaces every job with these (a test's or a benchmark's many jobs); reset() still goes back. */
  replace(records: readonly ScanJobRecord[]): void;
}

export interface ScanJobStoreOptions {
  /** Clock for phase timing and for the dates of transitions. */
  readonly now: () => number;
  /** When set, jobs move one phase per this many ms, worked out lazily on each access. */
  readonly phaseDurationMs?: number;
  /** The jobs to start from (and to reset to); default the demo set. */
  readonly seed?: () => ScanJobRecord[];
}

interface StoredJob {
  record: ScanJobRecord;
  /** When the job entered its current phase, for timed advancing. */
  phaseSince: number;
}

const MOVING: ReadonlySet<ScanJobStatus> = new Set(['Reservation', 'Progress']);

function byNewestFirst(a: ScanJobRecord, b: ScanJobRecord): number {
  return Number(b.instanceNo) - Number(a.instanceNo) || b.instanceNo.localeCompare(a.instanceNo);
}

function withStatus(record: ScanJobRecord, status: ScanJobStatus): ScanJobRecord {
  return { ...record, status, result_button: RESULT_BUTTON_BY_STATUS[status] };
}

/** The record one phase on from `record`, the transition happening at `at`. */
function nextPhase(record: ScanJobRecord, at: number): ScanJobRecord {
  if (record.status === 'Reservation') {
    const crawled = crawlCountOf(record.instanceNo);
    return {
      ...withStatus(record, 'Progress'),
      start_date: formatPlatformDate(at),
      crawl_cnt: crawled,
      scan_cnt: 0,
      progress: 0,
    };
  }
  if (record.status === 'Progress') {
    return {
      ...withStatus(record, 'Complete'),
      end_date: formatPlatformDate(at),
      scan_cnt: record.crawl_cnt,
      progress: 100,
    };
  }
  return record;
}

class InMemoryScanJobStore implements ScanJobStore {
  readonly #jobs = new Map<string, StoredJob>();
  /** The jobs newest first, kept until the set changes (a list of 10,000 jobs is read per page). */
  #sorted: StoredJob[] | undefined;
  readonly #now: () => number;
  readonly #phaseDurationMs: number | undefined;
  readonly #seed: () => ScanJobRecord[];

  constructor(options: ScanJobStoreOptions) {
    if (options.phaseDurationMs !== undefined && !(options.phaseDurationMs > 0)) {
      throw new Error(`phaseDurationMs must be a positive number, got ${options.phaseDurationMs}`);
    }
    this.#now = options.now;
    this.#phaseDurationMs = options.phaseDurationMs;
    this.#seed = options.seed ?? demoScanJobs;
    this.reset();
  }

  list(): ScanJobRecord[] {
    return this.#newestFirst().map((job) => ({ ...job.record }));
  }

  page(
    matches: ((record: ScanJobRecord) => boolean) | undefined,
    offset: number,
    limit: number,
  ): { records: ScanJobRecord[]; total: number } {
    const all = this.#newestFirst();
    const kept = matches ? all.filter((job) => matches(job.record)) : all;
    return {
      records: kept.slice(offset, offset + limit).map((job) => ({ ...job.record })),
      total: kept.length,
    };
  }

  get(instanceNo: string): ScanJobRecord | undefined {
    this.#catchUp();
    const job = this.#jobs.get(instanceNo);
    return job && { ...job.record };
  }

  advance(instanceNo?: string): ScanJobRecord[] {
    this.#catchUp();
    const targets =
      instanceNo === undefined ? [...this.#jobs.values()] : [this.#require(instanceNo)];
    const now = this.#now();
    const moved = targets.filter((job) => MOVING.has(job.record.status));
    for (const job of moved) {
      job.record = nextPhase(job.record, now);
      job.phaseSince = now;
    }
    return moved.map((job) => ({ ...job.record })).sort(byNewestFirst);
  }

  cancel(instanceNo: string): TransitionOutcome {
    return this.#transition(instanceNo, 'Reservation', (record) => withStatus(record, 'Cancel'));
  }

  stop(instanceNo: string): TransitionOutcome {
    return this.#transition(instanceNo, 'Progress', (record) => ({
      ...withStatus(record, 'Stop'),
      end_date: formatPlatformDate(this.#now()),
      result_desc: STOPPED_DESCRIPTION,
    }));
  }

  reset(): void {
    this.replace(this.#seed());
  }

  replace(records: readonly ScanJobRecord[]): void {
    const now = this.#now();
    this.#jobs.clear();
    this.#sorted = undefined;
    for (const record of records) {
      this.#jobs.set(record.instanceNo, { record: { ...record }, phaseSince: now });
    }
  }

  /** Every stored job, newest first; the order is kept until a job is added or removed. */
  #newestFirst(): StoredJob[] {
    this.#catchUp();
    this.#sorted ??= [...this.#jobs.values()].sort((a, b) => byNewestFirst(a.record, b.record));
    return this.#sorted;
  }

  #require(instanceNo: string): StoredJob {
    const job = this.#jobs.get(instanceNo);
    if (!job) throw new Error(`No scan job with instanceNo "${instanceNo}"`);
    return job;
  }

  #transition(
    instanceNo: string,
    from: ScanJobStatus,
    change: (record: ScanJobRecord) => ScanJobRecord,
  ): TransitionOutcome {
    this.#catchUp();
    const job = this.#jobs.get(instanceNo);
    if (!job) return 'not-found';
    if (job.record.status !== from) return 'wrong-phase';
    job.record = change(job.record);
    job.phaseSince = this.#now();
    return 'done';
  }

  /** Timed mode: applies every phase change that is due, each dated when it fell due. */
  #catchUp(): void {
    const duration = this.#phaseDurationMs;
    if (duration === undefined) return;
    const now = this.#now();
    for (const job of this.#jobs.values()) {
      while (MOVING.has(job.record.status) && now - job.phaseSince >= duration) {
        job.phaseSince += duration;
        job.record = nextPhase(job.record, job.phaseSince);
      }
    }
  }
}

export function createScanJobStore(options: ScanJobStoreOptions): ScanJobStore {
  return new InMemoryScanJobStore(options);
}
