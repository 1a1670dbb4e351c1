/**
 * The scan job work that grows with the jobs, on top of the client: a walk over every page of
 * the job list (the watcher's) and the cancel-reserved workflow. Kept apart from the client so
 * that a function of single calls (list, search, cancel, stop, report) carries none of it.
 */

import type { CallContext } from '../core/call-context.ts';
import { perRuntime } from '../core/per-runtime.ts';
import type { WalkPlan } from '../core/walk-plan.ts';
import type { Runtime } from '../runtime.ts';
import type { CallMeter } from '../usage/bulk-meter.ts';
import { type CancelReservedAnswer, cancelReserved } from './cancel-reserved.ts';
import { type ScanJobsClient, scanJobsClientOf } from './client.ts';
import type { CancelReservedBody } from './schemas.ts';
import { PageWalk } from './walk.ts';

class BulkScanJobs {
  private readonly client: ScanJobsClient;

  constructor(client: ScanJobsClient) {
    this.client = client;
  }

  /** A walk over the pages of the job list, under a walk's time plan (the watcher's). */
  listWalk(plan: WalkPlan): PageWalk {
    const client = this.client;
    return new PageWalk({
      fetch: (page, limit, onAttempt, call) => client.list({ page, limit }, call, onAttempt),
      plan,
      settings: client.bulk,
      acceptedSize: client.listPageSize,
    });
  }

  /**
   * Searches every page, then cancels each reserved job, several at a time; one failure does
   * not stop the rest, and what the time could not cover comes back as `remaining`. A dry run
   * answers what it would cancel; more reserved jobs than `expectAtMost` throw 409 (nothing sent).
   * With a meter, every call takes a unit of the caller's plans first.
   */
  cancelReserved(
    criteria: CancelReservedBody,
    call: CallContext,
    meter?: CallMeter,
  ): Promise<CancelReservedAnswer> {
    const client = this.client;
    return cancelReserved(
      {
        search: (body, call, onAttempt) => client.search(body, call, onAttempt),
        cancel: (instanceNo, call, onAttempt) => client.cancel(instanceNo, call, onAttempt),
        searchPageSize: client.searchPageSize,
      },
      criteria,
      call,
      client.bulk,
      meter,
    );
  }
}

/** The container's bulk scan job work, on its scan job client. */
export const bulkScanJobsOf = perRuntime(
  (runtime: Runtime) => new BulkScanJobs(scanJobsClientOf(runtime)),
);
