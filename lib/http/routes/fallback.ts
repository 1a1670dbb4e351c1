/**
 * The catch-all and what a grouped function answers for a route key it does not serve: kept
 * apart from the service's routes so that a function that only needs the catch-all (every
 * grouped function) carries none of theirs.
 */
import type { Route } from './route.ts';

/** The catch-all's function, and its route's id. */
const FALLBACK = 'fallback';
/** Any path: API Gateway's greedy path parameter. */
const ANY_PATH = '/{proxy+}';

/**
 * The catch-all: API Gateway's `$default` route, for an unknown path or a known path called
 * with another method. Not a route of the registry (it is in no document): it answers 404/`300`
 * or 405/`100` in the uniform envelope rather than API Gateway's own.
 */
export const fallbackRoute: Route = {
  function: FALLBACK,
  id: FALLBACK,
  method: 'ANY',
  path: ANY_PATH,
  access: 'public',
  summary: 'Any other path or method: 404 or 405',
  tag: 'service',
};

/**
 * What a grouped function answers for a route key it does not serve (a misrouted request): the
 * catch-all's method, path and access, written out so that a grouped function carries no more.
 */
export function notServedRoute(functionName: string): Route {
  const id = `${functionName}NotServed`;
  return {
    function: functionName,
    id,
    method: 'ANY',
    path: ANY_PATH,
    access: 'public',
    summary: id,
    tag: 'service',
  };
}
