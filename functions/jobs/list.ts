/** GET /jobs?page=&limit= */
import { passThrough } from '../../lib/http/responses.js';
import { jobRoutes } from '../../lib/http/routes/jobs.js';
import { getRuntime, platformFunction } from '../../lib/runtime.js';
import { scanJobsOf } from '../../lib/scan-jobs/client.js';

const scanJobs = scanJobsOf(getRuntime());

export const handler = platformFunction(jobRoutes.listJobs, async (request) =>
  passThrough(await scanJobs.list(request.query, request.budget), 200),
);
