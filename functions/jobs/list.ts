/** GET /jobs?page=&limit= */

import { bind } from '../../lib/http/bind.ts';
import { admissionOf, callerParts, queryOf } from '../../lib/http/parts.ts';
import { passThrough } from '../../lib/http/responses.ts';
import { jobRoutes } from '../../lib/http/routes/jobs.ts';
import { getRuntime } from '../../lib/runtime.ts';
import { scanJobsClientOf } from '../../lib/scan-jobs/client.ts';

const runtime = getRuntime();
const scanJobs = scanJobsClientOf(runtime);

export const handler = bind(
  jobRoutes.listJobs,
  async (request) => passThrough(await scanJobs.list(request.query, request.call), 200),
  { ...callerParts(runtime), admission: admissionOf(runtime), queryOf },
);
