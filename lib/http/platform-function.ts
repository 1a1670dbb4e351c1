/**
 * An HTTP function that calls the platform: the middy stack (http-function.ts) with the
 * container's callers (the secret's, or JWT claims when deployed with an issuer), and the
 * container's runtime built when the module loads (cold start), so that a bad configuration
 * fails the function's init.
 */
import type { Runtime } from '../runtime.js';
import { getRuntime } from '../runtime.js';
import { callersOf } from './callers.js';
import { definitionOf, type HttpRequest, httpFunction } from './http-function.js';
import type { HttpResponse } from './responses.js';
import type { Route } from './routes/route.js';

export function platformFunction<B, Q, P>(
  route: Route<B, Q, P>,
  handler: (request: HttpRequest<B, Q, P>, runtime: Runtime) => Promise<HttpResponse>,
) {
  const runtime = getRuntime();
  return httpFunction<B, Q, P>(
    {
      ...definitionOf(route),
      log: runtime.log.child({ function: route.id }),
      callers: callersOf(runtime),
    },
    (request) => handler(request, runtime),
  );
}
