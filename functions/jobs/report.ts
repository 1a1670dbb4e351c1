/** GET /jobs/{instanceId}/report */

import { callerRoute } from '../../lib/http/caller-route.js';
import { reportResponse } from '../../lib/http/responses.js';
import { jobRoutes } from '../../lib/http/routes/jobs.js';
import { getRuntime } from '../../lib/runtime.js';
import { scanJobsClientOf } from '../../lib/scan-jobs/client.js';

const scanJobs = scanJobsClientOf(getRuntime());

// As an attachment: a browser saves the report rather than shows it on this API's origin.
export const handler = callerRoute(jobRoutes.getJobReport, async (request) =>
  reportResponse(
    await scanJobs.report(request.path.instanceId, request.call),
    request.path.instanceId,
  ),
);
