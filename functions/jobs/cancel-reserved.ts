/**
 * POST /jobs/cancel-reserved: cancels every reserved job a search finds, across all pages,
 * several at a time; answers 200 with what it cancelled, what failed and what the time left
 * could not cover (its timeout is 25 s, under API Gateway's 30 s: sls/functions/core.yml).
 */

import { platformFunction } from '../../lib/http/platform-function.js';
import { json } from '../../lib/http/responses.js';
import { jobRoutes } from '../../lib/http/routes/jobs.js';
import { getRuntime } from '../../lib/runtime.js';
import { bulkScanJobsOf } from '../../lib/scan-jobs/bulk.js';

const scanJobs = bulkScanJobsOf(getRuntime());

export const handler = platformFunction(jobRoutes.cancelReservedJobs, async (request) =>
  json(200, await scanJobs.cancelReserved(request.body, request.budget, request.log)),
);
