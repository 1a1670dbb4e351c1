/**
 * Who the caller is, before anything is parsed or sent: 401/`200` when unknown, expired or
 * malformed. The caller goes on the request's state, its id on the request's logger (never its
 * token), and the request counts in `CallerRequests` by caller and route, so that an operator
 * sees who spends the platform's quota.
 */
import type { IdentifyCaller } from '../callers.ts';
import type { HttpMiddleware } from './middleware.ts';

export function authenticate(identify: IdentifyCaller, routeKey: string): HttpMiddleware {
  return {
    before: async ({ event: state }) => {
      const caller = await identify(state.apiGatewayEvent, state.headers);
      state.caller = caller;
      state.log = state.log.child({ caller: caller.id });
      state.metrics.count('CallerRequests', { Caller: caller.id, Route: routeKey });
    },
  };
}
