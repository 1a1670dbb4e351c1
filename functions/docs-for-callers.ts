/**
 * GET /docs and GET /docs/{asset} for known callers only: deployed instead of docs.ts where the
 * stage turns its public reference off (publicReference: false). A browser sends no bearer token
 * when it opens a page: on such a stage the page is for tools that do.
 */
import { docsAsset, docsPage } from '../lib/http/docs-responses.js';
import { platformFunction } from '../lib/http/platform-function.js';
import { callerReferenceRoute } from '../lib/http/reference-routes.js';
import { serviceRoutes } from '../lib/http/routes/service.js';

const page = platformFunction(callerReferenceRoute(serviceRoutes.docs), async () => docsPage());
const asset = platformFunction(callerReferenceRoute(serviceRoutes.docsAsset), async (request) =>
  docsAsset(request.path.asset, request.headers),
);

export const handler: typeof page = (event, context) =>
  (event.pathParameters?.asset === undefined ? page : asset)(event, context);
