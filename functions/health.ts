/** GET /health: liveness, without credentials and without calling the platform. */
import { json } from '../lib/http/responses.js';
import { httpFunction } from '../lib/http/stack.js';

export const handler = httpFunction({ name: 'health' }, async () => json(200, { status: 'ok' }));
