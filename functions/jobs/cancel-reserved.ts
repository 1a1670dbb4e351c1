/** POST /jobs/cancel-reserved: cancels every reserved job a search finds, across all pages. */

import { platformFunction } from '../../lib/http/platform-function.js';
import { json } from '../../lib/http/responses.js';
import { jobRoutes } from '../../lib/http/routes/jobs.js';
import { getRuntime } from '../../lib/runtime.js';
import { scanJobsClientOf } from '../../lib/scan-jobs/client.js';

const scanJobs = scanJobsClientOf(getRuntime());

export const handler = platformFunction(jobRoutes.cancelReservedJobs, async (request) =>
  json(200, await scanJobs.cancelReserved(request.body, request.budget)),
);
