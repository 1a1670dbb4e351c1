import { Router } from '../core/router.ts';
import type { GatewayRequest, GatewayResponse } from '../core/types.ts';
import type { ApiModule, ApiRoute } from './api-module.ts';
import { gatewayErrorResponse } from './envelope.ts';
import { gatewayError } from './error-table.ts';

export type GatewayDispatcher = (request: GatewayRequest) => Promise<GatewayResponse>;

const URL_NOT_FOUND = 'URL not found.';

/**
 * The gateway's own order: find the resource (unknown path, or a method the resource does not
 * define, is 404/300), authenticate, then hand over to the backend. A backend that throws is
 * answered 500/900.
 */
export function createGatewayDispatcher(
  modules: readonly ApiModule[],
  onUnexpectedError: (error: unknown) => void,
): GatewayDispatcher {
  const router = new Router<ApiRoute>(modules.flatMap((module) => module.routes));
  return async (request) => {
    const match = router.match(request.method, request.path);
    if (match.kind !== 'matched') {
      return gatewayErrorResponse(gatewayError('300', URL_NOT_FOUND), request.headers);
    }
    try {
      const refusal = match.route.authenticate(request);
      if (refusal) return gatewayErrorResponse(refusal, request.headers);
      return await match.route.handle({ request, params: match.params });
    } catch (error) {
      onUnexpectedError(error);
      return gatewayErrorResponse(gatewayError('900'), request.headers);
    }
  };
}
