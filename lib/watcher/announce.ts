/**
 * One chunk of status changes, announced: claimed, announced, recorded (in that order; see
 * watcher.ts), its claims released when the announcement fails. And a run's tallies, which each
 * chunk adds to.
 */
import type { Logger } from '../core/log.ts';
import { detailOf, type ObservedJob, type RecordedJob, type StatusChange } from './changes.ts';
import type { ChangeEmitter, EmitFailure } from './emitters.ts';
import type { RunLease, WatcherStateStore } from './state-store.ts';

/** A run's tallies, as its segments add to them. */
export interface Progress {
  pages: number;
  changes: number;
  emitted: number;
  skipped: number;
  baselined: number;
  invalid: number;
  failures: EmitFailure[];
  readonly seen: Set<string>;
}

export function newProgress(): Progress {
  return {
    pages: 0,
    changes: 0,
    emitted: 0,
    skipped: 0,
    baselined: 0,
    invalid: 0,
    failures: [],
    seen: new Set(),
  };
}

/** What one run's chunks share. */
export interface AnnounceRun {
  readonly store: WatcherStateStore;
  readonly emitter: ChangeEmitter;
  readonly lease: RunLease;
  readonly observedAt: string;
  readonly recorded: Map<string, RecordedJob>;
  readonly progress: Progress;
  readonly log: Logger;
}

/**
 * Claims the chunk's changes, announces the claimed ones in one call, records the announced
 * ones. A recording failure propagates: those changes went out and the next run repeats them.
 */
export async function announceChunk(
  chunk: readonly StatusChange[],
  run: AnnounceRun,
): Promise<void> {
  const { store, emitter, lease, observedAt, progress } = run;
  const claimed = await store.claim(chunk, lease);
  progress.skipped += chunk.length - claimed.length;
  if (claimed.length === 0) return;
  const details = claimed.map((change) => detailOf(change, observedAt));
  let failures: EmitFailure[];
  try {
    failures = await emitter.emit(details, run.log);
  } catch (error) {
    await releaseQuietly(claimed, run);
    throw error;
  }
  const failed = new Set(failures.map((failure) => failure.detail.changeId));
  const isFailed = (_change: StatusChange, index: number) =>
    failed.has(details[index]?.changeId ?? '');
  const announced = claimed.filter((change, index) => !isFailed(change, index));
  await store.record(announced, lease, observedAt);
  for (const { job } of announced) run.recorded.set(job.instanceNo, recordOf(job, observedAt));
  progress.emitted += claimed.length - failures.length;
  if (failures.length > 0) {
    progress.failures.push(...failures);
    await releaseQuietly(claimed.filter(isFailed), run);
  }
}

/** Best effort: an unreleased claim lapses at the run deadline anyway. */
async function releaseQuietly(changes: readonly StatusChange[], run: AnnounceRun): Promise<void> {
  try {
    await run.store.release(changes, run.lease);
  } catch (error) {
    run.log.warn('could not release scan job change claims; they lapse at the run deadline', {
      count: changes.length,
      errorName: (error as Error).name,
    });
  }
}

/** The recorded view of a job, as of `at`. */
export function recordOf(job: ObservedJob, at: string): RecordedJob {
  return { status: job.status, updatedAt: at };
}
