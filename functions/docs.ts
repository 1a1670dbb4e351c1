/**
 * GET /docs and GET /docs/{asset}: the reference in a browser (lib/http/docs-page.ts), Swagger
 * UI from this function's own bundle, without a token (a stage's public reference, the
 * default). A stage that turns it off deploys docs-for-callers.ts instead (serverless.yml).
 */
import { docsAsset, docsPage } from '../lib/http/docs-responses.js';
import { definitionOf, httpFunction } from '../lib/http/http-function.js';
import { publicReferenceRoute } from '../lib/http/reference-routes.js';
import { serviceRoutes } from '../lib/http/routes/service.js';

const page = httpFunction(definitionOf(publicReferenceRoute(serviceRoutes.docs)), async () =>
  docsPage(),
);
const asset = httpFunction(
  definitionOf(publicReferenceRoute(serviceRoutes.docsAsset)),
  async (request) => docsAsset(request.path.asset, request.headers),
);

export const handler: typeof page = (event, context) =>
  (event.pathParameters?.asset === undefined ? page : asset)(event, context);
