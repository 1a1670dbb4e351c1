/**
 * GET /openapi.json for known callers only: deployed instead of openapi.ts where the stage turns
 * its public reference off (publicReference: false).
 */
import { bind } from '../lib/http/bind.ts';
import { callerParts } from '../lib/http/parts.ts';
import { callerReferenceRoute, openApiDocument } from '../lib/http/reference-routes.ts';
import { serviceRoutes } from '../lib/http/routes/service.ts';
import { getRuntime } from '../lib/runtime.ts';

export const handler = bind(
  callerReferenceRoute(serviceRoutes.openapi),
  async () => openApiDocument(),
  callerParts(getRuntime()),
);
