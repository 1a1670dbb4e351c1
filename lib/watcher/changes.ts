/**
 * What the scan job watcher compares and what it announces: the jobs it sees, the statuses it
 * recorded, and the status changes between the two. Pure functions, no I/O.
 */
import type { ListedJob } from '../scan-jobs/schemas.ts';

/** The platform's status of a finished scan: a report can be fetched. */
const COMPLETE_STATUS = 'Complete';

/** One job as the watcher saw it in the list. */
export interface ObservedJob {
  readonly instanceNo: string;
  /** The platform's status text (Reservation, Progress, Complete, Cancel, Stop, ...). */
  readonly status: string;
  readonly memo: string | null;
  readonly startUrl: string | null;
}

/** The watcher's last view of one job. */
export interface RecordedJob {
  readonly status: string;
  /** ISO 8601: when this status was recorded. */
  readonly updatedAt: string;
}

type RecordedJobs = ReadonlyMap<string, RecordedJob>;

/** A job whose status differs from the one recorded (previousStatus null: never seen before). */
export interface StatusChange {
  readonly job: ObservedJob;
  readonly previousStatus: string | null;
}

/** The event that announces one change (EventBridge `Detail`, and the fields of a log line). */
export interface StatusChangeDetail {
  /**
   * Deterministic: the same change always has the same id, in every run. A change announced
   * again after a run failed between announcing and recording it carries the same id, so
   * consumers dedupe on it. A job enters each status at most once, so the pair is unique.
   */
  readonly changeId: string;
  readonly instanceNo: string;
  readonly previousStatus: string | null;
  readonly status: string;
  readonly memo: string | null;
  readonly start_url: string | null;
  /** ISO 8601: when the watcher saw the new status. */
  readonly observedAt: string;
  /** This package's route to the report, once the job is complete. */
  readonly reportPath?: string;
}

const textOrNull = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/**
 * Every job of the listed pages by instanceNo. A job may appear on two pages when jobs are
 * added while the pages are walked (the list is newest first): the later sighting wins. A
 * record without a status says nothing about a change and is left out.
 */
export function observedJobs(pages: Iterable<readonly ListedJob[]>): Map<string, ObservedJob> {
  const jobs = new Map<string, ObservedJob>();
  for (const page of pages) {
    for (const record of page) {
      if (typeof record.status !== 'string' || record.status === '') continue;
      const instanceNo = String(record.instanceNo);
      jobs.set(instanceNo, {
        instanceNo,
        status: record.status,
        memo: textOrNull(record['memo']),
        startUrl: textOrNull(record['start_url']),
      });
    }
  }
  return jobs;
}

/**
 * The jobs whose status is not the recorded one, oldest instanceNo first (a stable order, so
 * that a run that failed half way and the run that catches up take the changes in one order).
 * A recorded job missing from the list is left alone: it is neither a change nor forgotten.
 */
export function statusChanges(
  observed: ReadonlyMap<string, ObservedJob>,
  recorded: RecordedJobs,
): StatusChange[] {
  const changes: StatusChange[] = [];
  for (const job of observed.values()) {
    const previousStatus = recorded.get(job.instanceNo)?.status ?? null;
    if (previousStatus !== job.status) changes.push({ job, previousStatus });
  }
  return changes.sort((a, b) => compareInstanceNo(a.job.instanceNo, b.job.instanceNo));
}

function compareInstanceNo(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}

function changeIdOf(instanceNo: string, status: string): string {
  return `${instanceNo}:${status}`;
}

function reportPathOf(instanceNo: string): string {
  return `/jobs/${encodeURIComponent(instanceNo)}/report`;
}

export function detailOf(change: StatusChange, observedAt: string): StatusChangeDetail {
  const { job } = change;
  return {
    changeId: changeIdOf(job.instanceNo, job.status),
    instanceNo: job.instanceNo,
    previousStatus: change.previousStatus,
    status: job.status,
    memo: job.memo,
    start_url: job.startUrl,
    observedAt,
    ...(job.status === COMPLETE_STATUS ? { reportPath: reportPathOf(job.instanceNo) } : {}),
  };
}

/** Splits a list into consecutive chunks of at most `size` items. */
export function chunksOf<T>(items: readonly T[], size: number): T[][] {
  const chunks: T[][] = [];
  for (let start = 0; start < items.length; start += size) {
    chunks.push(items.slice(start, start + size));
  }
  return chunks;
}
