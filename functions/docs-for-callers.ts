/**
 * GET /docs and GET /docs/{asset} for known callers only: deployed instead of docs.ts where the
 * stage turns its public reference off (publicReference: false). A browser sends no bearer token
 * when it opens a page: on such a stage the page is for tools that do.
 */

import { callerRoute } from '../lib/http/caller-route.ts';
import { docsAsset, docsPage } from '../lib/http/docs-responses.ts';
import { callerReferenceRoute } from '../lib/http/reference-routes.ts';
import { routeGroup } from '../lib/http/route-group.ts';
import { serviceRoutes } from '../lib/http/routes/service.ts';

export const handler = routeGroup([
  callerRoute(callerReferenceRoute(serviceRoutes.docs), async () => docsPage()),
  callerRoute(callerReferenceRoute(serviceRoutes.docsAsset), async (request) =>
    docsAsset(request.path.asset, request.headers),
  ),
]);
