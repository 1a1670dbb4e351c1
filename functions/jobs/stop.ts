/** PATCH /jobs/{instanceId}/stop */
import { passThrough } from '../../lib/http/responses.js';
import { getRuntime, platformFunction } from '../../lib/runtime.js';
import { instancePathSchema, scanJobsOf } from '../../lib/scanJobs.js';

const scanJobs = scanJobsOf(getRuntime());

export const handler = platformFunction(
  { name: 'stopJob', path: instancePathSchema },
  async (request) => passThrough(await scanJobs.stop(request.path.instanceId, request.budget), 200),
);
