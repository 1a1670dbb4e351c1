/** GET /openapi.json: the OpenAPI 3.1 document of every route. */
import { callerRoute } from '../lib/http/caller-route.js';
import { openApiDocumentText } from '../lib/http/openapi-document.js';
import { serviceRoutes } from '../lib/http/routes/service.js';

export const handler = callerRoute(serviceRoutes.openapi, async () => ({
  statusCode: 200,
  headers: { 'content-type': 'application/json' },
  body: openApiDocumentText(),
}));
