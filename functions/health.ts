/** GET /health: liveness, without credentials and without calling the platform. */

import { publicRoute } from '../lib/http/public-route.js';
import { json } from '../lib/http/responses.js';
import { serviceRoutes } from '../lib/http/routes/service.js';

export const handler = publicRoute(serviceRoutes.health, async () => json(200, { status: 'ok' }));
