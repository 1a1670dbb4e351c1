/**
 * GET /openapi.json for known callers only: deployed instead of openapi.ts where the stage turns
 * its public reference off (publicReference: false).
 */
import { platformFunction } from '../lib/http/platform-function.js';
import { openApiDocument } from '../lib/http/reference-responses.js';
import { callerReferenceRoute } from '../lib/http/reference-routes.js';
import { serviceRoutes } from '../lib/http/routes/service.js';

export const handler = platformFunction(callerReferenceRoute(serviceRoutes.openapi), async () =>
  openApiDocument(),
);
