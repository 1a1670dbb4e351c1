/** PATCH /jobs/{instanceId}/cancel */
import { passThrough } from '../../lib/http/responses.js';
import { getRuntime, platformFunction } from '../../lib/runtime.js';
import { instancePathSchema, scanJobsOf } from '../../lib/scanJobs.js';

const scanJobs = scanJobsOf(getRuntime());

export const handler = platformFunction(
  { name: 'cancelJob', path: instancePathSchema },
  async (request) =>
    passThrough(await scanJobs.cancel(request.path.instanceId, request.budget), 200),
);
