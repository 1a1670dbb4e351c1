/**
 * The scan job watcher: reads the pages of the scan job list several at a time, compares each
 * job's status with the last recorded view, and announces each change once.
 *
 * Per change, in this order: claim it, announce it, record it. Announcing before recording is
 * the only order that never misses a change: a run that fails before announcing leaves the old
 * view, so the next run sees the change again; a run that fails between announcing and
 * recording makes the next run announce that one change again, with the same changeId
 * (at least once; consumers dedupe on changeId). The claim keeps two overlapping runs from
 * announcing the same change (see dynamo-state-store.ts).
 *
 * A pass works through the list a segment of pages at a time (read, compare, announce, record)
 * under the invocation's time plan. When the time left cannot cover the next call, or a page
 * cannot be read, it keeps a cursor where it stopped; the next pass starts there and goes round
 * the list, so a list too long for one invocation is still covered, a part per pass.
 */
import { randomUUID } from 'node:crypto';
import { AdaptiveLimit, runBounded } from '../core/bounded-pool.ts';
import type { CallContext } from '../core/call-context.ts';
import { type ServiceError, WatchRunError } from '../core/errors.ts';
import type { Logger } from '../core/log.ts';
import { WalkPlan } from '../core/walk-plan.ts';
import { isJobId, type ListedJob } from '../scan-jobs/schemas.ts';
import { pageRange, type WalkedPage } from '../scan-jobs/walk.ts';
import { announceChunk, newProgress, type Progress, recordOf } from './announce.ts';
import {
  chunksOf,
  type ObservedJob,
  observedJobs,
  type RecordedJob,
  statusChanges,
} from './changes.ts';
import type { ChangeEmitter } from './emitters.ts';
import type { RunLease, WatchCursor, WatcherStateStore } from './state-store.ts';

/** The watcher's function (sls/functions.ts): its log lines and its metrics' Function dimension. */
export const WATCHER_FUNCTION = 'watchScanJobs';

export interface WatchSummary {
  /** Pages of the job list read. */
  readonly pages: number;
  /** Distinct jobs seen. */
  readonly jobs: number;
  /** Jobs whose status differs from the recorded one, on the pages read. */
  readonly changes: number;
  /** Changes this run announced and recorded. */
  readonly emitted: number;
  /** Changes another run was announcing (or had already recorded). */
  readonly skipped: number;
  /** Jobs recorded without an announcement, on the first runs over an empty store. */
  readonly baselined: number;
  /** Every page was read and every change found was dealt with; false: a cursor was kept. */
  readonly complete: boolean;
  /** Reads this run made of its state store (DynamoDB calls, or file reads). */
  readonly stateReads: number;
  /** Writes this run made to its state store (DynamoDB calls, or file writes). */
  readonly stateWrites: number;
}

/** The part of a page walk the watcher uses (lib/scan-jobs/walk.ts). */
interface ListWalk {
  first(pageFor: (pageSize: number) => number): Promise<WalkedPage>;
  read(
    pages: readonly number[],
  ): Promise<{ pages: WalkedPage[]; unread: number[]; errors: ServiceError[] }>;
}

interface JobLister {
  /** A walk over the job list's pages, under the run's time plan. */
  listWalk(plan: WalkPlan): ListWalk;
}

interface ScanJobWatcherOptions {
  readonly scanJobs: JobLister;
  readonly store: WatcherStateStore;
  readonly emitter: ChangeEmitter;
  /**
   * On the first runs, over an empty store, record every job without announcing it (default
   * true): the jobs that ended before the watcher existed are history, not news. Later runs
   * announce a job never seen before as a change from null.
   */
  readonly baseline?: boolean;
  readonly now?: () => number;
  /** How long a run's claims last when the run's own deadline is unknown (local runs). */
  readonly defaultLeaseMs?: number;
  /** Pages read and compared together (SEGMENT_PAGES). */
  readonly segmentPages?: number;
}

/** Changes claimed, announced and recorded together: one PutEvents call each. */
const CHUNK_SIZE = 10;
/** Chunks of changes in flight at once (each: a claim round, a PutEvents, a record round). */
const CHUNK_CONCURRENCY = 4;
/**
 * Pages read, then compared and announced, together: large enough to keep the page pool busy
 * (8 at a time), small enough that a pass cut short loses little of what it read.
 */
const SEGMENT_PAGES = 32;
const DEFAULT_LEASE_MS = 60_000;
/**
 * Kept back from the invocation (60 s): the chunk in flight, the cursor's write and the
 * summary's log line.
 */
const WATCH_RESERVE_MS = 5000;

export class ScanJobWatcher {
  private readonly now: () => number;

  private readonly options: ScanJobWatcherOptions;

  constructor(options: ScanJobWatcherOptions) {
    this.options = options;
    this.now = options.now ?? (() => Date.now());
  }

  /** One pass, within the invocation's call context (its time, metrics and log). */
  async run(call: CallContext): Promise<WatchSummary> {
    const { store } = this.options;
    const log = call.log;
    const callsBefore = { ...store.calls };
    const plan = new WalkPlan(call, { reserveMs: WATCH_RESERVE_MS });
    const lease = this.leaseFor(call);
    const state = await store.load();
    const recorded = state.jobs;
    const baselining =
      state.cursor?.baselining ?? ((this.options.baseline ?? true) && recorded.size === 0);

    const walk = this.options.scanJobs.listWalk(plan);
    const first = await this.firstPage(walk, state.cursor);
    const order = rotation(first.page, Math.max(first.pageCount, 1));
    const progress = newProgress();
    // An empty store marks the baseline as begun, so that an overlapping run records too.
    const marksBaseline = baselining && !state.cursor && first.jobs.length > 0;
    if (marksBaseline) {
      await store.saveCursor({ nextPage: first.page, pageSize: first.pageSize, baselining });
    }

    let stoppedAt: number | undefined;
    let pageError: ServiceError | undefined;
    const segment = this.options.segmentPages ?? SEGMENT_PAGES;
    for (let position = 0; position < order.length; position += segment) {
      const pages = order.slice(position, position + segment);
      if (position > 0 && !plan.mayStart()) {
        stoppedAt = pages[0];
        break;
      }
      const read =
        position === 0 ? await this.readRest(walk, first, pages.slice(1)) : await walk.read(pages);
      const done = await this.compareAndAnnounce(read.pages, recorded, baselining, lease, plan, {
        progress,
        log,
      });
      if (!done) {
        stoppedAt = pages[0];
        break;
      }
      if (read.unread.length > 0) {
        // In rotation order: the first page of this segment not read.
        stoppedAt = pages.find((page) => read.unread.includes(page));
        pageError = read.errors[0];
        break;
      }
    }

    const complete = stoppedAt === undefined;
    const cursor: WatchCursor | undefined = complete
      ? undefined
      : { nextPage: stoppedAt as number, pageSize: first.pageSize, baselining };
    if (!complete || state.cursor || marksBaseline) await store.saveCursor(cursor);

    const summary: WatchSummary = {
      pages: progress.pages,
      jobs: progress.seen.size,
      changes: progress.changes,
      emitted: progress.emitted,
      skipped: progress.skipped,
      baselined: progress.baselined,
      complete,
      stateReads: store.calls.reads - callsBefore.reads,
      stateWrites: store.calls.writes - callsBefore.writes,
    };
    if (progress.invalid > 0) {
      log.warn('scan jobs with an instanceNo outside the job id pattern were left out', {
        count: progress.invalid,
      });
    }
    if (cursor) {
      log.warn('scan job watch stopped short; the next run goes on from its cursor', {
        ...summary,
        nextPage: cursor.nextPage,
        pageSize: cursor.pageSize,
      });
    } else if (baselining) {
      log.info('scan job watcher baseline recorded', { ...summary, store: store.description });
    }
    if (pageError) {
      log.error('a page of the scan job list could not be read; the next run goes on from it', {
        ...summary,
        errorCode: pageError.code,
        status: pageError.status,
      });
      throw new WatchRunError(`A page of the scan job list could not be read: ${pageError.code}`);
    }
    if (progress.failures.length > 0) {
      log.error('scan job changes not announced; the next run retries them', {
        ...summary,
        failed: progress.failures.length,
        reasons: [...new Set(progress.failures.map((failure) => failure.reason))].join(','),
      });
      throw new WatchRunError(
        `${progress.failures.length} of ${progress.changes} scan job changes could not be announced`,
      );
    }
    return summary;
  }

  /** The page the pass starts at: the cursor's, or page 1 (also when the list got shorter). */
  private async firstPage(walk: ListWalk, cursor: WatchCursor | undefined): Promise<WalkedPage> {
    if (!cursor) return walk.first(() => 1);
    const offset = (cursor.nextPage - 1) * cursor.pageSize;
    const page = await walk.first((size) => Math.floor(offset / size) + 1);
    return page.page > Math.max(page.pageCount, 1) ? walk.first(() => 1) : page;
  }

  /** The first segment: the first page, already read, and the others of the segment. */
  private async readRest(walk: ListWalk, first: WalkedPage, pages: readonly number[]) {
    const rest = await walk.read(pages.filter((page) => page <= first.pageCount));
    return { ...rest, pages: [first, ...rest.pages] };
  }

  /**
   * The segment's jobs against the recorded view: unrecorded jobs of a baseline recorded
   * silently, every other change claimed, announced and recorded, several chunks at a time.
   * Returns false when the time left could not cover every chunk (the rest waits for the cursor).
   */
  private async compareAndAnnounce(
    pages: readonly WalkedPage[],
    recorded: Map<string, RecordedJob>,
    baselining: boolean,
    lease: RunLease,
    plan: WalkPlan,
    run: { progress: Progress; log: Logger },
  ): Promise<boolean> {
    const { progress, log } = run;
    const { store, emitter } = this.options;
    progress.pages += pages.length;
    const observed = new Map<string, ObservedJob>();
    for (const [instanceNo, job] of observedJobs(pages.map((page) => validJobs(page, progress)))) {
      // A job seen on an earlier page of this pass (the list moved under the walk) is done.
      if (progress.seen.has(instanceNo)) continue;
      progress.seen.add(instanceNo);
      observed.set(instanceNo, job);
    }
    const changes = statusChanges(observed, recorded);
    const history = baselining ? changes.filter((change) => change.previousStatus === null) : [];
    const news = baselining ? changes.filter((change) => change.previousStatus !== null) : changes;
    const observedAt = new Date(this.now()).toISOString();
    if (history.length > 0) {
      await store.baseline(
        history.map((change) => change.job),
        observedAt,
      );
      for (const { job } of history) recorded.set(job.instanceNo, recordOf(job, observedAt));
      progress.baselined += history.length;
    }
    progress.changes += news.length;

    const chunks = chunksOf(news, CHUNK_SIZE);
    const left = await runBounded(
      chunks,
      (chunk) =>
        plan.time(() =>
          announceChunk(chunk, { store, emitter, lease, observedAt, recorded, progress, log }),
        ),
      { limit: new AdaptiveLimit(CHUNK_CONCURRENCY), mayStart: () => plan.mayStart() },
    );
    // Chunks never started wait for the next pass, which starts at this segment.
    return left.length === 0;
  }

  /** A run's claims last until the invocation's deadline: after it, the run is surely over. */
  private leaseFor(call: CallContext): RunLease {
    const remaining = call.remainingMs?.() ?? this.options.defaultLeaseMs ?? DEFAULT_LEASE_MS;
    return { token: randomUUID(), expiresAt: this.now() + remaining };
  }
}

/** Pages `start`..`count`, then 1..`start` − 1: a pass goes round the list from its cursor. */
function rotation(start: number, count: number): number[] {
  return [...pageRange(start, count), ...pageRange(1, Math.min(start - 1, count))];
}

/** The page's jobs whose instanceNo may go into a path (a report path in an event). */
function validJobs(page: WalkedPage, progress: Progress): ListedJob[] {
  return page.jobs.filter((job) => {
    const valid = isJobId(String(job.instanceNo));
    if (!valid) progress.invalid += 1;
    return valid;
  });
}
