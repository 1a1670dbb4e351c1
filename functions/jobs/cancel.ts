/** PATCH /jobs/{instanceId}/cancel */

import { bind } from '../../lib/http/bind.ts';
import { admissionOf, callerParts, pathParams } from '../../lib/http/parts.ts';
import { passThrough } from '../../lib/http/responses.ts';
import { jobRoutes } from '../../lib/http/routes/jobs.ts';
import { getRuntime } from '../../lib/runtime.ts';
import { scanJobsClientOf } from '../../lib/scan-jobs/client.ts';

const runtime = getRuntime();
const scanJobs = scanJobsClientOf(runtime);

export const handler = bind(
  jobRoutes.cancelJob,
  async (request) => {
    request.target({ jobIds: [request.path.instanceId] });
    return passThrough(await scanJobs.cancel(request.path.instanceId, request.call), 200);
  },
  { ...callerParts(runtime), admission: admissionOf(runtime), pathParams },
);
