/**
 * GET /docs and GET /docs/{asset}: the reference in a browser (lib/http/docs-page.ts), Swagger
 * UI from this function's own bundle, without a token (a stage's public reference, the
 * default). A stage that turns it off deploys docs-for-callers.ts instead (serverless.yml).
 */

import { bind } from '../lib/http/bind.ts';
import { docsAsset, docsPage } from '../lib/http/docs-responses.ts';
import { pathParams } from '../lib/http/middleware/path-params.ts';
import { publicReferenceRoute } from '../lib/http/reference-routes.ts';
import { routeGroup } from '../lib/http/route-group.ts';
import { serviceRoutes } from '../lib/http/routes/service.ts';

export const handler = routeGroup([
  bind(publicReferenceRoute(serviceRoutes.docs), async () => docsPage()),
  bind(
    publicReferenceRoute(serviceRoutes.docsAsset),
    async (request) => docsAsset(request.path.asset, request.headers),
    { pathParams },
  ),
]);
