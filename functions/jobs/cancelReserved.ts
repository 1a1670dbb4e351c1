/** POST /jobs/cancel-reserved: cancels every reserved job a search finds, across all pages. */
import { json } from '../../lib/http/responses.js';
import { platformFunction } from '../../lib/runtime.js';
import { cancelReservedBodySchema } from '../../lib/scanJobs.js';

export const handler = platformFunction(
  { name: 'cancelReservedJobs', body: cancelReservedBodySchema },
  async (request, { scanJobs }) =>
    json(200, await scanJobs.cancelReserved(request.body, request.budget)),
);
