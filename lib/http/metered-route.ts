/**
 * The third of the ways a route is bound to its handler: a caller's bulk work (`cancel-reserved`),
 * which takes a unit of its caller's usage plans, and of the account's, for every call it sends
 * upstream rather than one per request. The handler gets the validated request and the
 * request's meter (lib/usage/bulk-meter.ts) to hand to the walk; every answer carries the
 * plans' RateLimit fields as the walk left them, and what the meter's blocks left unused goes
 * back when the handler ends.
 */
import { getRuntime } from '../runtime.ts';
import { BulkMeter } from '../usage/bulk-meter.ts';
import type { Plans } from '../usage/plan.ts';
import { usageGateOf } from '../usage/setup.ts';
import { callersOf } from './callers.ts';
import type { RouteRequest } from './request-state.ts';
import type { HttpResponse } from './responses.ts';
import { type BoundRoute, routeStack } from './route-stack.ts';
import type { Route } from './routes/route.ts';

export function meteredRoute<B, Q, P>(
  route: Route<B, Q, P>,
  handler: (request: RouteRequest<B, Q, P>, meter: BulkMeter) => Promise<HttpResponse>,
): BoundRoute {
  if (route.spends !== 'per-call' || route.access === 'public') {
    throw new Error(`${route.id}: use callerRoute`);
  }
  const runtime = getRuntime();
  const gate = usageGateOf(runtime);
  const log = runtime.log.child({ function: route.function });
  return routeStack(route, { log, identify: callersOf(runtime) }, async (request) => {
    const caller = request.caller!;
    // A caller with no plans (a JWT caller): the meter takes nothing.
    const meter = new BulkMeter(gate, caller.id, caller.plans ?? ({} as Plans), request.call);
    try {
      return await handler(request, meter);
    } finally {
      // Its answer carries them, whatever it is (route-stack.ts).
      request.answerHeaders(meter.fields());
      await meter.finish();
    }
  });
}
