/**
 * The parts a route is bound with beyond the light steps of its stack (bind.ts), each made from
 * the container's runtime at cold start. A function names only those its route needs, so that
 * its bundle carries no other: a bundle keeps only the makers it calls.
 */
import type { Runtime } from '../runtime.ts';
import { BulkMeter } from '../usage/bulk-meter.ts';
import { NO_PLANS } from '../usage/plan.ts';
import { usageGateOf } from '../usage/setup.ts';
import type { Units } from '../usage/units.ts';
import { type Caller, callersOf, type IdentifyCaller } from './callers.ts';
import { admission } from './middleware/admission.ts';
import { bytesBody } from './middleware/bytes-body.ts';
import { jsonBody } from './middleware/json-body.ts';
import type { HttpMiddleware } from './middleware/middleware.ts';
import { pathParams } from './middleware/path-params.ts';
import { queryOf } from './query.ts';
import type { RequestInput, RouteRequest } from './request-state.ts';
import type { HttpResponse } from './responses.ts';

/** What a route that needs a caller is bound with: the runtime, and the caller check. */
export interface CallerParts {
  readonly runtime: Runtime;
  readonly callers: IdentifyCaller;
}

export function callerParts(runtime: Runtime): CallerParts {
  return { runtime, callers: callersOf(runtime) };
}

/**
 * The steps that read a route's input, each named in the binding of a route that has that input
 * (bind.ts asks for them by the route's type): its path parameters, its query, a JSON body, a
 * body of bytes the stack checks (`{ ...callerParts(runtime), pathParams, queryOf }`).
 */
export interface InputSteps {
  readonly pathParams: typeof pathParams;
  readonly queryOf: typeof queryOf;
  readonly jsonBody: typeof jsonBody;
  readonly bytesBody: typeof bytesBody;
}

export { bytesBody, jsonBody, pathParams, queryOf };

/** The usage check of a route that spends a set of units a request (middleware/admission.ts). */
export type Admission = (spends: (input: RequestInput) => Units) => HttpMiddleware;

export function admissionOf(runtime: Runtime): Admission {
  const gate = usageGateOf(runtime);
  return (spends) => admission(gate, spends);
}

/** A request of a route that needs a caller: the stack has found it before the handler runs. */
export type CallerRequest<B, Q, P> = RouteRequest<B, Q, P> & { readonly caller: Caller };

/**
 * The meter of a caller's bulk work (`spends: 'per-call'`): a unit of the caller's usage plans,
 * and of the account's, for every call it sends upstream, not one per request. It wraps a
 * handler that takes the request's meter (lib/usage/bulk-meter.ts) to hand to its walk.
 */
export type Metering = <B, Q, P>(
  handler: (request: CallerRequest<B, Q, P>, meter: BulkMeter) => Promise<HttpResponse>,
) => (request: CallerRequest<B, Q, P>) => Promise<HttpResponse>;

export function meteringOf(runtime: Runtime): Metering {
  const gate = usageGateOf(runtime);
  return (handler) => async (request) => {
    const { caller } = request;
    // A caller with no plans (a JWT caller): the meter takes nothing.
    const meter = new BulkMeter(gate, caller.id, caller.plans ?? NO_PLANS, request.call);
    try {
      return await handler(request, meter);
    } finally {
      // Every answer carries the plans' RateLimit fields as the walk left them, and what the
      // meter's blocks left unused goes back.
      request.answerHeaders(meter.fields());
      await meter.finish();
    }
  };
}
