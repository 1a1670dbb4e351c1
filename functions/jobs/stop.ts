/** PATCH /jobs/{instanceId}/stop */
import { passThrough } from '../../lib/http/responses.js';
import { platformFunction } from '../../lib/runtime.js';
import { instancePathSchema } from '../../lib/scanJobs.js';

export const handler = platformFunction(
  { name: 'stopJob', path: instancePathSchema },
  async (request, { scanJobs }) =>
    passThrough(await scanJobs.stop(request.path.instanceId, request.budget), 200),
);
