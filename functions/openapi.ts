/**
 * GET /openapi.json: the OpenAPI 3.1 document of every route, without a token (a stage's public
 * reference, the default). A stage that turns it off deploys openapi-for-callers.ts instead
 * (serverless.yml), so that this bundle carries no caller check and no HTTP client.
 */
import { bind } from '../lib/http/bind.ts';
import { openApiDocument, publicReferenceRoute } from '../lib/http/reference-routes.ts';
import { serviceRoutes } from '../lib/http/routes/service.ts';

export const handler = bind(publicReferenceRoute(serviceRoutes.openapi), async () =>
  openApiDocument(),
);
