/** GET /health: liveness, without credentials and without calling the platform. */

import { definitionOf, httpFunction } from '../lib/http/http-function.js';
import { json } from '../lib/http/responses.js';
import { serviceRoutes } from '../lib/http/routes/service.js';

export const handler = httpFunction(definitionOf(serviceRoutes.health), async () =>
  json(200, { status: 'ok' }),
);
