/**
 * GET /openapi.json for known callers only: deployed instead of openapi.ts where the stage turns
 * its public reference off (publicReference: false).
 */
import { callerRoute } from '../lib/http/caller-route.ts';
import { callerReferenceRoute, openApiDocument } from '../lib/http/reference-routes.ts';
import { serviceRoutes } from '../lib/http/routes/service.ts';

export const handler = callerRoute(callerReferenceRoute(serviceRoutes.openapi), async () =>
  openApiDocument(),
);
