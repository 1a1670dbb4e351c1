/**
 * POST /jobs/cancel-reserved: cancels every reserved job a search finds, across all pages,
 * several at a time; answers 200 with what it cancelled, what failed and what the time left or
 * the caller's plans could not cover (its timeout is 25 s, under API Gateway's 30 s: its entry
 * in sls/functions.ts). A caller runs one at a time (a lease in the usage table: a second
 * answers 429/`410` while the first runs). Every call it sends upstream, each page read and
 * each cancel, takes a unit of the caller's plan and the account's (its meter). The request
 * line names every job it cancelled or failed to.
 */

import { bind } from '../../lib/http/bind.ts';
import { callerParts, jsonBody, meteringOf } from '../../lib/http/parts.ts';
import { json } from '../../lib/http/responses.ts';
import { jobRoutes } from '../../lib/http/routes/jobs.ts';
import { getRuntime } from '../../lib/runtime.ts';
import { bulkScanJobsOf } from '../../lib/scan-jobs/bulk.ts';
import { jobIdsOf } from '../../lib/scan-jobs/cancel-reserved.ts';
import { leasesOf } from '../../lib/usage/lease.ts';

const runtime = getRuntime();
const scanJobs = bulkScanJobsOf(runtime);
const acquireLease = leasesOf(runtime);
/** The lease outlives the invocation by this much: it is released at the end anyway. */
const LEASE_MARGIN_MS = 1000;

export const handler = bind(
  jobRoutes.cancelReservedJobs,
  async (request, meter) => {
    const { call } = request;
    const leaseMs = (call.remainingMs?.() ?? 25_000) + LEASE_MARGIN_MS;
    const release = await acquireLease(request.caller.id, leaseMs, call);
    try {
      const answer = await scanJobs.cancelReserved(request.body, call, meter);
      // Every job it cancelled or failed to (a cancel that timed out may still have happened).
      request.target({ jobIds: jobIdsOf(answer) });
      return json(200, answer);
    } finally {
      await release();
    }
  },
  { ...callerParts(runtime), meter: meteringOf(runtime), jsonBody },
);
