/** POST /jobs/search */
import { passThrough } from '../../lib/http/responses.js';
import { getRuntime, platformFunction } from '../../lib/runtime.js';
import { scanJobsOf, searchBodySchema } from '../../lib/scanJobs.js';

const scanJobs = scanJobsOf(getRuntime());

export const handler = platformFunction(
  { name: 'searchJobs', body: searchBodySchema },
  async (request) => passThrough(await scanJobs.search(request.body, request.budget), 200),
);
