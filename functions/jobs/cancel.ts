/** PATCH /jobs/{instanceId}/cancel */
import { passThrough } from '../../lib/http/responses.js';
import { platformFunction } from '../../lib/runtime.js';
import { instancePathSchema } from '../../lib/scanJobs.js';

export const handler = platformFunction(
  { name: 'cancelJob', path: instancePathSchema },
  async (request, { scanJobs }) =>
    passThrough(await scanJobs.cancel(request.path.instanceId, request.budget), 200),
);
