/**
 * GET /docs and GET /docs/{asset} for known callers only: deployed instead of docs.ts where the
 * stage turns its public reference off (publicReference: false). A browser sends no bearer token
 * when it opens a page: on such a stage the page is for tools that do.
 */

import { bind } from '../lib/http/bind.ts';
import { docsAsset, docsPage } from '../lib/http/docs-responses.ts';
import { callerParts, pathParams } from '../lib/http/parts.ts';
import { callerReferenceRoute } from '../lib/http/reference-routes.ts';
import { routeGroup } from '../lib/http/route-group.ts';
import { serviceRoutes } from '../lib/http/routes/service.ts';
import { getRuntime } from '../lib/runtime.ts';

const parts = { ...callerParts(getRuntime()), pathParams };

export const handler = routeGroup([
  bind(callerReferenceRoute(serviceRoutes.docs), async () => docsPage(), parts),
  bind(
    callerReferenceRoute(serviceRoutes.docsAsset),
    async (request) => docsAsset(request.path.asset, request.headers),
    parts,
  ),
]);
