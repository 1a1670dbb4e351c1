/** GET /jobs?page=&limit= */

import { callerRoute } from '../../lib/http/caller-route.js';
import { passThrough } from '../../lib/http/responses.js';
import { jobRoutes } from '../../lib/http/routes/jobs.js';
import { getRuntime } from '../../lib/runtime.js';
import { scanJobsClientOf } from '../../lib/scan-jobs/client.js';

const scanJobs = scanJobsClientOf(getRuntime());

export const handler = callerRoute(jobRoutes.listJobs, async (request) =>
  passThrough(await scanJobs.list(request.query, request.call), 200),
);
