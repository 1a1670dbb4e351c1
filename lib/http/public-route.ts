/**
 * The first of the two ways a route is bound to its handler: a route that needs no caller
 * (health, the catch-all, a webhook, which its signature authenticates). It loads nothing of
 * the runtime: health's bundle carries no undici and no secret store. A public route that
 * needs the runtime (the webhook receiver) builds it itself and hands its logger over.
 */
import { loadLogLevel } from '../core/config.ts';
import { createLogger, type Logger } from '../core/log.ts';
import { type BoundRoute, type RouteHandler, routeStack } from './route-stack.ts';
import type { Route } from './routes/route.ts';

export function publicRoute<B, Q, P>(
  route: Route<B, Q, P>,
  handler: RouteHandler<B, Q, P>,
  options: { readonly log?: Logger } = {},
): BoundRoute {
  if (route.access !== 'public') throw new Error(`${route.id} needs a caller: use callerRoute`);
  const log = options.log ?? createLogger({}, undefined, loadLogLevel());
  return routeStack(route, { log: log.child({ function: route.function }) }, handler);
}
