/** GET /jobs?page=&limit= */

import { callerRoute } from '../../lib/http/caller-route.ts';
import { passThrough } from '../../lib/http/responses.ts';
import { jobRoutes } from '../../lib/http/routes/jobs.ts';
import { getRuntime } from '../../lib/runtime.ts';
import { scanJobsClientOf } from '../../lib/scan-jobs/client.ts';

const scanJobs = scanJobsClientOf(getRuntime());

export const handler = callerRoute(jobRoutes.listJobs, async (request) =>
  passThrough(await scanJobs.list(request.query, request.call), 200),
);
