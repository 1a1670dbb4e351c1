/** GET /health: liveness, without credentials and without calling the platform. */
import { json } from '../lib/inbound/responses.js';
import { definitionOf, httpFunction } from '../lib/inbound/stack.js';
import { serviceRoutes } from '../lib/routes/service.js';

export const handler = httpFunction(definitionOf(serviceRoutes.health), async () =>
  json(200, { status: 'ok' }),
);
