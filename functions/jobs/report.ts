/** GET /jobs/{instanceId}/report */
import { passThrough } from '../../lib/http/responses.js';
import { platformFunction } from '../../lib/runtime.js';
import { instancePathSchema } from '../../lib/scanJobs.js';

export const handler = platformFunction(
  { name: 'getJobReport', path: instancePathSchema },
  async (request, { scanJobs }) =>
    passThrough(await scanJobs.report(request.path.instanceId, request.budget), 200),
);
