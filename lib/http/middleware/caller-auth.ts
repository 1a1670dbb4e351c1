/**
 * The caller check, before anything is parsed or sent: who the caller is (401/`200` when
 * unknown, expired or malformed), then whether it holds the route's scope (403/`210`). The
 * caller goes on the request's state, its id on the request's logger (never its token), and
 * the request counts in `CallerRequests` by caller and route, so that an operator sees who
 * spends the platform's quota.
 */

import { CallerScopeError } from '../../core/errors.js';
import type { Logger } from '../../core/log.js';
import { countMetric } from '../../core/metrics.js';
import { grants, scopeFor } from '../../core/scopes.js';
import type { IdentifyCaller } from '../callers.js';
import type { RouteAccess } from '../routes/route.js';
import { type HttpMiddleware, stateOf } from './request-state.js';

export interface CallerCheck {
  /** How the caller is found (bearer tokens of the secret, or JWT claims when deployed). */
  readonly identify: IdentifyCaller;
  /** What the route needs: a scope, or any known caller. */
  readonly access: Exclude<RouteAccess, 'public'>;
  /** The route, as the metric's Route dimension (`GET /jobs`). */
  readonly route: string;
}

export function callerAuth(check: CallerCheck, baseLog: Logger): HttpMiddleware {
  return {
    before: async (request) => {
      const state = stateOf(request, baseLog);
      const caller = await check.identify(request.event, state.headers);
      state.caller = caller;
      state.log = state.log.child({ caller: caller.id });
      countMetric('CallerRequests', { Caller: caller.id, Route: check.route });
      if (check.access === 'caller') return;
      const scope = scopeFor(check.access.scope, request.event.pathParameters?.name);
      if (!grants(caller.scopes, scope)) throw new CallerScopeError(scope);
    },
  };
}
