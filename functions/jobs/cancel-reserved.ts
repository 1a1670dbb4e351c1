/** POST /jobs/cancel-reserved: cancels every reserved job a search finds, across all pages. */
import { json } from '../../lib/http/responses.js';
import { jobRoutes } from '../../lib/http/routes/jobs.js';
import { getRuntime, platformFunction } from '../../lib/runtime.js';
import { scanJobsOf } from '../../lib/scan-jobs/client.js';

const scanJobs = scanJobsOf(getRuntime());

export const handler = platformFunction(jobRoutes.cancelReservedJobs, async (request) =>
  json(200, await scanJobs.cancelReserved(request.body, request.budget)),
);
