/** POST /jobs/cancel-reserved: cancels every reserved job a search finds, across all pages. */
import { json } from '../../lib/inbound/responses.js';
import { jobRoutes } from '../../lib/routes/jobs.js';
import { getRuntime, platformFunction } from '../../lib/runtime.js';
import { scanJobsOf } from '../../lib/scan-jobs.js';

const scanJobs = scanJobsOf(getRuntime());

export const handler = platformFunction(jobRoutes.cancelReservedJobs, async (request) =>
  json(200, await scanJobs.cancelReserved(request.body, request.budget)),
);
