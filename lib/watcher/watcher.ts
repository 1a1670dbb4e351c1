/**
 * The scan job watcher: lists every page of scan jobs, compares each
 * job's status with the last recorded view, and announces each change once.
 *
 * Per change, in this order: claim it, announce it, record it. Announcing before recording is
 * the only order that never misses a change: a run that fails before announcing leaves the old
 * view, so the next run sees the change again; a run that fails between announcing and
 * recording makes the next run announce that one change again, with the same changeId
 * (at least once; consumers dedupe on changeId). The claim keeps two overlapping runs from
 * announcing the same change (see dynamo-state-store.ts).
 */
import { randomUUID } from 'node:crypto';
import { WatchRunError } from '../core/errors.js';
import type { Logger } from '../core/log.js';
import type { TimeBudget } from '../core/time-budget.js';
import type { ListedJob } from '../scan-jobs/schemas.js';
import { chunksOf, detailOf, observedJobs, type StatusChange, statusChanges } from './changes.js';
import type { ChangeEmitter, EmitFailure } from './emitters.js';
import type { RunLease, WatcherStateStore } from './state-store.js';

export interface WatchSummary {
  /** Pages of the job list read. */
  readonly pages: number;
  /** Distinct jobs seen. */
  readonly jobs: number;
  /** Jobs whose status differs from the recorded one. */
  readonly changes: number;
  /** Changes this run announced and recorded. */
  readonly emitted: number;
  /** Changes another run was announcing (or had already recorded). */
  readonly skipped: number;
  /** Jobs recorded without an announcement, on the first run over an empty store. */
  readonly baselined: number;
}

interface JobLister {
  listEveryPage(budget: TimeBudget): AsyncIterable<ListedJob[]>;
}

interface ScanJobWatcherOptions {
  readonly scanJobs: JobLister;
  readonly store: WatcherStateStore;
  readonly emitter: ChangeEmitter;
  readonly log: Logger;
  /**
   * On the first run, over an empty store, record every job without announcing it (default
   * true): the jobs that ended before the watcher existed are history, not news. Later runs
   * announce a job never seen before as a change from null.
   */
  readonly baseline?: boolean;
  readonly now?: () => number;
  /** How long a run's claims last when the run's own deadline is unknown (local runs). */
  readonly defaultLeaseMs?: number;
}

/** Changes claimed, announced and recorded together: one PutEvents call each. */
const CHUNK_SIZE = 10;
const DEFAULT_LEASE_MS = 60_000;

export class ScanJobWatcher {
  private readonly now: () => number;

  constructor(private readonly options: ScanJobWatcherOptions) {
    this.now = options.now ?? (() => Date.now());
  }

  async run(budget: TimeBudget = {}, log: Logger = this.options.log): Promise<WatchSummary> {
    const { store } = this.options;
    const pages = await this.listAllPages(budget);
    const observed = observedJobs(pages);
    const recorded = await store.load();
    const observedAt = new Date(this.now()).toISOString();
    const counts = { pages: pages.length, jobs: observed.size };

    if ((this.options.baseline ?? true) && recorded.size === 0 && observed.size > 0) {
      await store.baseline([...observed.values()], observedAt);
      log.info('scan job watcher baseline recorded', { ...counts, store: store.description });
      return { ...counts, changes: 0, emitted: 0, skipped: 0, baselined: observed.size };
    }

    const changes = statusChanges(observed, recorded);
    const lease = this.leaseFor(budget);
    const progress = { emitted: 0, skipped: 0, failures: [] as EmitFailure[] };
    for (const chunk of chunksOf(changes, CHUNK_SIZE)) {
      await this.announce(chunk, lease, observedAt, progress, log);
    }
    const summary: WatchSummary = {
      ...counts,
      changes: changes.length,
      emitted: progress.emitted,
      skipped: progress.skipped,
      baselined: 0,
    };
    if (progress.failures.length > 0) {
      log.error('scan job changes not announced; the next run retries them', {
        ...summary,
        failed: progress.failures.length,
        reasons: [...new Set(progress.failures.map((failure) => failure.reason))].join(','),
      });
      throw new WatchRunError(
        `${progress.failures.length} of ${changes.length} scan job changes could not be announced`,
      );
    }
    return summary;
  }

  private async listAllPages(budget: TimeBudget): Promise<ListedJob[][]> {
    const pages: ListedJob[][] = [];
    for await (const page of this.options.scanJobs.listEveryPage(budget)) pages.push(page);
    return pages;
  }

  /** A run's claims last until the invocation's deadline: after it, the run is surely over. */
  private leaseFor(budget: TimeBudget): RunLease {
    const remaining = budget.remainingMs?.() ?? this.options.defaultLeaseMs ?? DEFAULT_LEASE_MS;
    return { token: randomUUID(), expiresAt: this.now() + remaining };
  }

  private async announce(
    chunk: readonly StatusChange[],
    lease: RunLease,
    observedAt: string,
    progress: { emitted: number; skipped: number; failures: EmitFailure[] },
    log: Logger,
  ): Promise<void> {
    const { store, emitter } = this.options;
    const claimed = await store.claim(chunk, lease);
    progress.skipped += chunk.length - claimed.length;
    if (claimed.length === 0) return;
    const details = claimed.map((change) => detailOf(change, observedAt));
    let failures: EmitFailure[];
    try {
      failures = await emitter.emit(details);
    } catch (error) {
      await this.releaseQuietly(claimed, lease, log);
      throw error;
    }
    const failed = new Set(failures.map((failure) => failure.detail.changeId));
    const isFailed = (_change: StatusChange, index: number) =>
      failed.has(details[index]?.changeId ?? '');
    // Recording failures propagate: those changes went out and the next run repeats them.
    await store.record(
      claimed.filter((change, index) => !isFailed(change, index)),
      lease,
      observedAt,
    );
    progress.emitted += claimed.length - failures.length;
    if (failures.length > 0) {
      progress.failures.push(...failures);
      await this.releaseQuietly(claimed.filter(isFailed), lease, log);
    }
  }

  /** Best effort: an unreleased claim lapses at the run's deadline anyway. */
  private async releaseQuietly(
    changes: readonly StatusChange[],
    lease: RunLease,
    log: Logger,
  ): Promise<void> {
    try {
      await this.options.store.release(changes, lease);
    } catch (error) {
      log.warn('could not release scan job change claims; they lapse at the run deadline', {
        count: changes.length,
        errorName: (error as Error).name,
      });
    }
  }
}
