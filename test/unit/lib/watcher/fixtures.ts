/** Jobs and status changes as the watcher's stores receive them. */
import type { ObservedJob, StatusChange } from '../../../../lib/watcher/changes.ts';

export const observed = (instanceNo: string, status: string): ObservedJob => ({
  instanceNo,
  status,
  memo: null,
  startUrl: null,
});

export const change = (
  instanceNo: string,
  previousStatus: string | null,
  status: string,
): StatusChange => ({
  job: observed(instanceNo, status),
  previousStatus,
});
