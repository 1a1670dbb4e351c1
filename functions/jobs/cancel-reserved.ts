/**
 * POST /jobs/cancel-reserved: cancels every reserved job a search finds, across all pages,
 * several at a time; answers 200 with what it cancelled, what failed and what the time left or
 * the caller's plans could not cover (its timeout is 25 s, under API Gateway's 30 s:
 * sls/functions/core.yml). A caller runs one at a time (a lease in the usage table: a second
 * answers 429/`410` while the first runs). Every call it sends upstream, each page read and
 * each cancel, takes a unit of the caller's plans and the account's (a usage meter, in blocks;
 * what a block leaves unused goes back at the end). The request line names every job it
 * cancelled or failed to.
 */

import { callerRoute } from '../../lib/http/caller-route.js';
import { json } from '../../lib/http/responses.js';
import { jobRoutes } from '../../lib/http/routes/jobs.js';
import { getRuntime } from '../../lib/runtime.js';
import { bulkScanJobsOf } from '../../lib/scan-jobs/bulk.js';
import { jobIdsOf } from '../../lib/scan-jobs/cancel-reserved.js';
import { usageGateOf } from '../../lib/usage/setup.js';

const runtime = getRuntime();
const scanJobs = bulkScanJobsOf(runtime);
const gate = usageGateOf(runtime);
/** The lease outlives the invocation by this much: it is released at the end anyway. */
const LEASE_MARGIN_MS = 1000;
const NO_PLANS = { plan: undefined, accountPlan: undefined };

export const handler = callerRoute(jobRoutes.cancelReservedJobs, async (request) => {
  const { call } = request;
  const caller = request.caller!;
  const leaseMs = (call.remainingMs?.() ?? 25_000) + LEASE_MARGIN_MS;
  const release = await gate.acquire(caller.id, leaseMs, call);
  const meter = gate.meter(caller.id, caller.plans ?? NO_PLANS, call);
  try {
    const answer = await scanJobs.cancelReserved(request.body, call, meter);
    // Every job it cancelled or failed to (a cancel that timed out may still have happened).
    request.target({ jobIds: jobIdsOf(answer) });
    const response = json(200, answer);
    return { ...response, headers: { ...response.headers, ...meter.fields() } };
  } finally {
    request.answerHeaders(meter.fields());
    await Promise.all([meter.finish(), release()]);
  }
});
