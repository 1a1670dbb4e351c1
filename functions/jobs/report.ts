/** GET /jobs/{instanceId}/report */
import { passThrough } from '../../lib/http/responses.js';
import { jobRoutes } from '../../lib/http/routes/jobs.js';
import { getRuntime, platformFunction } from '../../lib/runtime.js';
import { scanJobsOf } from '../../lib/scan-jobs/client.js';

const scanJobs = scanJobsOf(getRuntime());

export const handler = platformFunction(jobRoutes.getJobReport, async (request) =>
  passThrough(await scanJobs.report(request.path.instanceId, request.budget), 200),
);
