/** POST /jobs/search */
import { passThrough } from '../../lib/http/responses.js';
import { platformFunction } from '../../lib/runtime.js';
import { searchBodySchema } from '../../lib/scanJobs.js';

export const handler = platformFunction(
  { name: 'searchJobs', body: searchBodySchema },
  async (request, { scanJobs }) =>
    passThrough(await scanJobs.search(request.body, request.budget), 200),
);
