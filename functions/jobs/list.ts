/** GET /jobs?page=&limit= */
import { passThrough } from '../../lib/http/responses.js';
import { platformFunction } from '../../lib/runtime.js';
import { listQuerySchema } from '../../lib/scanJobs.js';

export const handler = platformFunction(
  { name: 'listJobs', query: listQuerySchema },
  async (request, { scanJobs }) =>
    passThrough(await scanJobs.list(request.query, request.budget), 200),
);
