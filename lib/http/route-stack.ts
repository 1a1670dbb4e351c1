/**
 * The one middy stack of every HTTP route, built from its registry entry (lib/http/routes/): the
 * request log, the error envelope (JSON or XML by content negotiation), the body limit, then,
 * for a route that needs a caller, who the caller is, the path parameters and the caller's scope
 * (before anything else is parsed), then the body (JSON, or bytes of the route's media types),
 * the validation of the query and the JSON body, for a route that runs an action or a trigger
 * that target and the body against it, and, for a route that reaches the platform, its
 * admission against the caller's usage plans: whatever can refuse a request without the
 * platform comes before it. One middleware per file, in middleware/.
 *
 * The request's state is made once, when the function is invoked, from API Gateway's event, and
 * is the event the middy stack handles: every middleware reads it, and the handler gets it as a
 * `RouteRequest`. The whole invocation
 * is guarded to answer before the function's timeout. A route is bound to its handler over
 * this stack by `bind` (bind.ts), with the parts its entry asks for.
 */
import middy from '@middy/core';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import type { Logger } from '../core/log.ts';
import { answerInTime } from './answer-in-time.ts';
import type { IdentifyCaller } from './callers.ts';
import type { HandOffOf } from './hand-off.ts';
import { authenticate } from './middleware/authenticate.ts';
import { authorize } from './middleware/authorize.ts';
import { bodyLimit } from './middleware/body-limit.ts';
import type { bytesBody } from './middleware/bytes-body.ts';
import { errorEnvelope } from './middleware/error-envelope.ts';
import type { jsonBody } from './middleware/json-body.ts';
import type { HttpMiddleware } from './middleware/middleware.ts';
import type { pathParams } from './middleware/path-params.ts';
import { requestLog } from './middleware/request-log.ts';
import { validation } from './middleware/validation.ts';
import type { queryOf } from './query.ts';
import { RequestState, RouteRequest } from './request-state.ts';
import { type HttpResponse, withAnswerHeaders } from './responses.ts';
import { type Route, routeKeyOf } from './routes/route.ts';

/** What a route's handler does with its validated request. */
export type RouteHandler<B, Q, P> = (request: RouteRequest<B, Q, P>) => Promise<HttpResponse>;

/** A route bound to its handler: the Lambda handler, and the route it serves. */
export interface BoundRoute {
  (event: APIGatewayProxyEventV2, context: Context): Promise<HttpResponse>;
  readonly route: Route;
}

interface StackParts {
  /** The function's logger; each request's is a child of it. */
  readonly log: Logger;
  /** How the caller is found: required when the route needs a caller. */
  readonly identify?: IdentifyCaller;
  /**
   * The route's admission against its caller's usage plans (middleware/admission.ts): required
   * when a request of it spends of them (`route.spends`), none when its handler meters each call
   * (`per-call`, parts.ts's meteringOf). The binding brings it, so that a bundle without one carries
   * none of it.
   */
  readonly admission?: HttpMiddleware;
  /** Where its answers too large to return go: required when the route hands off. */
  readonly handOff?: HandOffOf;
  /**
   * The check of the action or trigger the route runs (middleware/execution-target.ts):
   * required when its bytes are checked by a target. The binding builds it, as the admission.
   */
  readonly executionTarget?: HttpMiddleware;
  /**
   * The steps that read the route's input (parts.ts's InputSteps), each required when the route
   * has that input: its path, its query, a JSON body, bytes the stack checks. The binding brings
   * them, so that a bundle carries only those of its routes.
   */
  readonly pathParams?: typeof pathParams | undefined;
  readonly queryOf?: typeof queryOf | undefined;
  readonly jsonBody?: typeof jsonBody | undefined;
  readonly bytesBody?: typeof bytesBody | undefined;
}

/** A part the route's data asks for and its binding did not give: the function fails at init. */
export function missing(route: Route, what: string): never {
  throw new Error(`${route.id} needs ${what}`);
}

export function routeStack<B, Q, P>(
  route: Route<B, Q, P>,
  parts: StackParts,
  handler: RouteHandler<B, Q, P>,
): BoundRoute {
  const input = route.input;
  const stack = middy<RequestState, HttpResponse, Error, Context>({
    // Off: answerInTime guards the whole invocation (answer-in-time.ts).
    timeoutEarlyInMillis: 0,
  })
    .use(requestLog(route.id))
    .use(errorEnvelope())
    .use(bodyLimit());
  // A route that needs a caller never runs without the check.
  if (route.access !== 'public') {
    stack.use(authenticate(parts.identify ?? missing(route, 'a caller check'), routeKeyOf(route)));
  }
  if (input?.path) stack.use(parts.pathParams?.(input.path) ?? missing(route, 'its path step'));
  if (typeof route.access === 'object') stack.use(authorize(route.access.scope));
  if (input?.body) stack.use(parts.jsonBody?.() ?? missing(route, 'its JSON body step'));
  else if (input?.bytes?.checkedBy === 'stack') {
    const { contentTypes, required } = input.bytes;
    stack.use(parts.bytesBody?.(contentTypes, required) ?? missing(route, 'its bytes step'));
  }
  const { body, query } = input ?? {};
  const schemas = query
    ? { body, query, queryOf: parts.queryOf ?? missing(route, 'its query reader') }
    : { body };
  stack.use(validation(schemas));
  // A route that runs an action or a trigger never runs without its check, before admission.
  if (typeof input?.bytes?.checkedBy === 'object') {
    stack.use(parts.executionTarget ?? missing(route, "its target's check"));
  }
  // A route that reaches the platform never runs without its admission.
  if (typeof route.spends === 'function') {
    const admission = route.access === 'public' ? undefined : parts.admission;
    stack.use(admission ?? missing(route, "its caller's plans"));
  }
  // A route that passes large answers through never runs without its hand-off.
  const handOff = route.handsOff ? (parts.handOff ?? missing(route, 'its hand-off')) : undefined;
  const handle = stack.handler((state) =>
    handler(new RouteRequest<B, Q, P>(state, handOff?.(state, route as Route))),
  );
  const bound = async (event: APIGatewayProxyEventV2, context: Context) => {
    const state = new RequestState(event, context, parts.log);
    // Every answer, the handler's, an error's or the guard's, carries nosniff and the headers
    // the request carries (its RateLimit fields): here, and nowhere else (responses.ts).
    const answer = await answerInTime(handle(state, context), state);
    return withAnswerHeaders(answer, state.carried.headers);
  };
  return Object.assign(bound, { route: route as Route });
}
