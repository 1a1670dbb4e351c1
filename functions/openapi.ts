/** GET /openapi.json: the OpenAPI 3.1 document of every route, built once per container. */
import { buildOpenApiDocument } from '../lib/http/openapi.js';
import { platformFunction } from '../lib/http/platform-function.js';
import { serviceRoutes } from '../lib/http/routes/service.js';

let document: string | undefined;

export const handler = platformFunction(serviceRoutes.openapi, async () => {
  document ??= JSON.stringify(buildOpenApiDocument());
  return { statusCode: 200, headers: { 'content-type': 'application/json' }, body: document };
});
