/**
 * POST /jobs/cancel-reserved: cancels every reserved job a search finds, across all pages,
 * several at a time; answers 200 with what it cancelled, what failed and what the time left
 * could not cover (its timeout is 25 s, under API Gateway's 30 s: sls/functions/core.yml). The
 * request line names every job it cancelled or failed to.
 */

import { callerRoute } from '../../lib/http/caller-route.js';
import { json } from '../../lib/http/responses.js';
import { jobRoutes } from '../../lib/http/routes/jobs.js';
import { getRuntime } from '../../lib/runtime.js';
import { bulkScanJobsOf } from '../../lib/scan-jobs/bulk.js';
import { jobIdsOf } from '../../lib/scan-jobs/cancel-reserved.js';

const scanJobs = bulkScanJobsOf(getRuntime());

export const handler = callerRoute(jobRoutes.cancelReservedJobs, async (request) => {
  const answer = await scanJobs.cancelReserved(request.body, request.call);
  // Every job it cancelled or failed to (a cancel that timed out may still have happened).
  request.target({ jobIds: jobIdsOf(answer) });
  return json(200, answer);
});
