/**
 * The second of the ways a route is bound to its handler: a route that needs a caller. The
 * container's runtime is built when the module loads (cold start), so that a bad configuration
 * fails the function's init; callers are the secret's, or JWT claims when deployed with an
 * issuer; a request of a route that reaches the platform is admitted against its caller's usage
 * plans by the container's usage gate. The handler gets the validated request and the runtime.
 * Bulk work, which takes a unit of the plans for each call it sends, is bound by meteredRoute.
 */
import type { Runtime } from '../runtime.ts';
import { getRuntime } from '../runtime.ts';
import { usageGateOf } from '../usage/setup.ts';
import { callersOf } from './callers.ts';
import type { HandOffOf } from './hand-off.ts';
import { admission } from './middleware/admission.ts';
import type { HttpMiddleware } from './middleware/middleware.ts';
import type { RouteRequest } from './request-state.ts';
import type { HttpResponse } from './responses.ts';
import { type BoundRoute, routeStack } from './route-stack.ts';
import type { Route } from './routes/route.ts';

/** A caller route's handler: the validated request, and the container's runtime. */
export type CallerRouteHandler<B, Q, P> = (
  request: RouteRequest<B, Q, P>,
  runtime: Runtime,
) => Promise<HttpResponse>;

export function callerRoute<B, Q, P>(
  route: Route<B, Q, P>,
  handler: CallerRouteHandler<B, Q, P>,
  /**
   * A route that hands off its large answers is bound with its hand-off (hand-off.ts); one that
   * runs an action or a trigger with its target's check (execution-route.ts).
   */
  options: { readonly handOff?: HandOffOf; readonly executionTarget?: HttpMiddleware } = {},
): BoundRoute {
  if (route.access === 'public') throw new Error(`${route.id} needs no caller: use publicRoute`);
  if (route.spends === 'per-call')
    throw new Error(`${route.id} meters its calls: use meteredRoute`);
  const runtime = getRuntime();
  const spends = route.spends;
  return routeStack(
    route,
    {
      log: runtime.log.child({ function: route.function }),
      identify: callersOf(runtime),
      admission: spends ? admission(usageGateOf(runtime), spends) : undefined,
      handOff: options.handOff,
      executionTarget: options.executionTarget,
    },
    (request) => handler(request, runtime),
  );
}
