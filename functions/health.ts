/** GET /health: liveness, without credentials and without calling the platform. */

import { publicRoute } from '../lib/http/public-route.ts';
import { json } from '../lib/http/responses.ts';
import { serviceRoutes } from '../lib/http/routes/service.ts';

export const handler = publicRoute(serviceRoutes.health, async () => json(200, { status: 'ok' }));
