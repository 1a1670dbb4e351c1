/** GET /openapi.json: the OpenAPI 3.1 document of every route. */
import { openApiDocumentText } from '../lib/http/openapi-document.js';
import { platformFunction } from '../lib/http/platform-function.js';
import { serviceRoutes } from '../lib/http/routes/service.js';

export const handler = platformFunction(serviceRoutes.openapi, async () => ({
  statusCode: 200,
  headers: { 'content-type': 'application/json' },
  body: openApiDocumentText(),
}));
