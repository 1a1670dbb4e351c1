/**
 * The one way a route is bound to its handler: `bind(route, handler, parts)`. The route's entry
 * decides the stack (route-stack.ts). The parts that stack needs beyond its light steps come with
 * the binding, so that a bundle carries only the parts its route uses: health carries no caller
 * check and no HTTP client, and a route that spends nothing carries no usage check.
 *
 * The route's type says which parts it needs, and the handler's types:
 * - any known caller, or a scope: `callerParts(runtime)` (parts.ts); `request.caller` is always
 *   there, and the handler's second argument is the runtime
 * - `spends` a function: `admission: admissionOf(runtime)`
 * - `spends: 'per-call'`: `meter: meteringOf(runtime)`; the handler's second argument is the
 *   request's meter
 * - `handsOff`: `handOff: answerHandOff(runtime)` (hand-off.ts)
 * - bytes checked by a target: `executionTarget` (middleware/execution-target.ts)
 * - the steps that read its input (parts.ts's InputSteps): `pathParams` for a path, `queryOf`
 *   for a query, `jsonBody` for a JSON body, `bytesBody` for bytes the stack checks
 *
 * A part left out is a type error, and fails the function's init as well.
 */
import { loadLogLevel } from '../core/config.ts';
import { createLogger, type Logger } from '../core/log.ts';
import type { Runtime } from '../runtime.ts';
import type { BulkMeter } from '../usage/bulk-meter.ts';
import type { Caller } from './callers.ts';
import type { HandOffOf } from './hand-off.ts';
import type { HttpMiddleware } from './middleware/middleware.ts';
import type { Admission, CallerParts, InputSteps, Metering } from './parts.ts';
import type { RouteRequest } from './request-state.ts';
import type { HttpResponse } from './responses.ts';
import { type BoundRoute, missing, type RouteHandler, routeStack } from './route-stack.ts';
import type { Route } from './routes/route.ts';

interface AllParts extends CallerParts, InputSteps {
  readonly admission: Admission;
  readonly meter: Metering;
  readonly handOff: HandOffOf;
  readonly executionTarget: HttpMiddleware;
  /** A public route's logger (a webhook's, its runtime's); a new one by default. */
  readonly log: Logger;
}

/**
 * Whether the route's type says it needs a part. A route built at run time (a catalogue API's, a
 * test's) may not say: its parts are then optional, and a missing one fails at init.
 */
type NeedsCaller<R> = R extends { readonly access: infer A }
  ? [A] extends ['public']
    ? false
    : 'public' extends A
      ? false
      : true
  : false;
type Admits<R> = R extends { readonly spends: (...args: never[]) => unknown } ? true : false;
type Meters<R> = R extends { readonly spends: 'per-call' } ? true : false;
type HandsOff<R> = R extends { readonly handsOff: true } ? true : false;
type Reads<R, Part extends string> = R extends { readonly input: { readonly [K in Part]: unknown } }
  ? true
  : false;
type ChecksBytes<R> = R extends {
  readonly input: { readonly bytes: { readonly checkedBy: 'stack' } };
}
  ? true
  : false;
type ChecksTarget<R> = R extends {
  readonly input: { readonly bytes: { readonly checkedBy: { readonly target: unknown } } };
}
  ? true
  : false;

/** A part the route needs, or one it may take. */
type Need<Needed extends boolean, Part> = Needed extends true ? Part : Partial<Part>;

/** The parts a route is bound with, as its entry asks for them. */
export type PartsOf<R> = Need<NeedsCaller<R>, CallerParts> &
  Need<Admits<R>, Pick<AllParts, 'admission'>> &
  Need<Meters<R>, Pick<AllParts, 'meter'>> &
  Need<HandsOff<R>, Pick<AllParts, 'handOff'>> &
  Need<ChecksTarget<R>, Pick<AllParts, 'executionTarget'>> &
  Need<Reads<R, 'path'>, Pick<AllParts, 'pathParams'>> &
  Need<Reads<R, 'query'>, Pick<AllParts, 'queryOf'>> &
  Need<Reads<R, 'body'>, Pick<AllParts, 'jsonBody'>> &
  Need<ChecksBytes<R>, Pick<AllParts, 'bytesBody'>> &
  Partial<Pick<AllParts, 'log'>>;

/** The handler's request: a caller route's always has its caller. */
export type RequestOf<R> =
  R extends Route<infer B, infer Q, infer P>
    ? RouteRequest<B, Q, P> & (NeedsCaller<R> extends true ? { readonly caller: Caller } : unknown)
    : never;

/** What the handler gets beside its request: the meter, the runtime, or nothing. */
type ExtraOf<R> =
  Meters<R> extends true
    ? [meter: BulkMeter]
    : NeedsCaller<R> extends true
      ? [runtime: Runtime]
      : [runtime?: Runtime];

export type HandlerOf<R> = (request: RequestOf<R>, ...extra: ExtraOf<R>) => Promise<HttpResponse>;

/** The parts argument: left out when the route needs none. */
type PartsArgument<R> = object extends PartsOf<R> ? [parts?: PartsOf<R>] : [parts: PartsOf<R>];

// biome-ignore lint/suspicious/noExplicitAny: a route of any input types
type AnyRoute = Route<any, any, any>;

export function bind<const R extends AnyRoute>(
  route: R,
  handler: HandlerOf<R>,
  ...[given]: PartsArgument<R>
): BoundRoute {
  const parts: Partial<AllParts> = given ?? {};
  // As the stack calls it: the types above hold each part and the handler to the route.
  const handle = handler as (request: AnyRequest, extra?: unknown) => Promise<HttpResponse>;
  const { runtime } = parts;
  const spends = route.spends;
  // The stack fails the function's init when a part the route needs is missing (route-stack.ts).
  const log = parts.log ?? runtime?.log ?? createLogger({}, undefined, loadLogLevel());
  return routeStack(
    route,
    {
      log: log.child({ function: route.function }),
      identify: parts.callers,
      admission: typeof spends === 'function' ? parts.admission?.(spends) : undefined,
      handOff: parts.handOff,
      executionTarget: parts.executionTarget,
      pathParams: parts.pathParams,
      queryOf: parts.queryOf,
      jsonBody: parts.jsonBody,
      bytesBody: parts.bytesBody,
    },
    spends === 'per-call'
      ? // The stack has found the caller before any handler runs.
        ((parts.meter ?? missing(route, 'its meter'))(handle) as AnyHandler)
      : (request) => handle(request, runtime),
  );
}

type AnyRequest = RouteRequest<unknown, unknown, unknown>;
type AnyHandler = RouteHandler<unknown, unknown, unknown>;
