/** GET /jobs?page=&limit= */
import { passThrough } from '../../lib/http/responses.js';
import { getRuntime, platformFunction } from '../../lib/runtime.js';
import { listQuerySchema, scanJobsOf } from '../../lib/scanJobs.js';

const scanJobs = scanJobsOf(getRuntime());

export const handler = platformFunction(
  { name: 'listJobs', query: listQuerySchema },
  async (request) => passThrough(await scanJobs.list(request.query, request.budget), 200),
);
