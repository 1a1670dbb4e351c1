/** GET /jobs/{instanceId}/report */

import { platformFunction } from '../../lib/http/platform-function.js';
import { passThrough } from '../../lib/http/responses.js';
import { jobRoutes } from '../../lib/http/routes/jobs.js';
import { getRuntime } from '../../lib/runtime.js';
import { scanJobsClientOf } from '../../lib/scan-jobs/client.js';

const scanJobs = scanJobsClientOf(getRuntime());

export const handler = platformFunction(jobRoutes.getJobReport, async (request) =>
  passThrough(await scanJobs.report(request.path.instanceId, request.budget), 200),
);
