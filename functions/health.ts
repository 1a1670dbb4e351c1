/** GET /health: liveness, without credentials and without calling the platform. */

import { bind } from '../lib/http/bind.ts';
import { json } from '../lib/http/responses.ts';
import { serviceRoutes } from '../lib/http/routes/service.ts';

export const handler = bind(serviceRoutes.health, async () => json(200, { status: 'ok' }));
