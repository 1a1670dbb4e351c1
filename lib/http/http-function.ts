/**
 * The one middy stack of every HTTP function: request log, error envelope with content
 * negotiation, the body limit, the caller check (who, and the route's scope), JSON or raw body, and zod validation of
 * path, query and body (one middleware per file, in middleware/). Handlers receive typed,
 * validated input; the whole invocation is guarded to answer before the function's timeout.
 */
import middy from '@middy/core';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import type * as z from 'zod/mini';
import { loadLogLevel } from '../core/config.js';
import type { HeaderMap } from '../core/headers.js';
import { createLogger, type Logger } from '../core/log.js';
import { type TimeBudget, timeBudgetOf } from '../core/time-budget.js';
import type { Caller, IdentifyCaller } from './callers.js';
import { answerInTime } from './middleware/answer-in-time.js';
import { bodyLimit } from './middleware/body-limit.js';
import { callerAuth } from './middleware/caller-auth.js';
import { errorEnvelope } from './middleware/error-envelope.js';
import { jsonBody } from './middleware/json-body.js';
import { rawBody } from './middleware/raw-body.js';
import { requestLog } from './middleware/request-log.js';
import type { HttpContext } from './middleware/request-state.js';
import { validation } from './middleware/validation.js';
import type { HttpResponse } from './responses.js';
import { type Route, type RouteAccess, routeKeyOf } from './routes/route.js';

type Schema<T> = z.ZodMiniType<T>;

interface HttpFunctionDefinition<B, Q, P> {
  /** Used in log lines and as the metrics' Function dimension. */
  readonly name: string;
  /** Who may call: the route's access; absent, anyone (the catch-all route). */
  readonly access?: RouteAccess;
  /** The route's key (`GET /jobs`), for the per-caller metric. */
  readonly route?: string;
  /** How the caller is found; required unless the access is public. */
  readonly callers?: IdentifyCaller;
  /** A JSON body (Content-Type application/json) validated by this schema. */
  readonly body?: Schema<B>;
  /**
   * A raw body (bytes, such as audio) instead of JSON: its Content-Type must be one of these
   * media types and it must not be empty. The handler receives it as a Buffer (declare B as
   * Buffer). Ignored when `body` is set.
   */
  readonly rawBody?: { readonly contentTypes: readonly string[] };
  readonly query?: Schema<Q>;
  readonly path?: Schema<P>;
  readonly log?: Logger;
}

/** A route's stack definition: its name and input schemas, from its registry entry. */
export function definitionOf<B, Q, P>(route: Route<B, Q, P>): HttpFunctionDefinition<B, Q, P> {
  const input = route.input;
  return {
    name: route.id,
    access: route.access,
    route: routeKeyOf(route),
    body: input?.body,
    query: input?.query,
    path: input?.path,
    rawBody: input?.rawBody ? { contentTypes: input.rawBody } : undefined,
  };
}

export interface HttpRequest<B, Q, P> {
  readonly event: APIGatewayProxyEventV2;
  readonly context: Context;
  /** The caller's method, upper case. */
  readonly method: string;
  readonly headers: HeaderMap;
  readonly body: B;
  readonly query: Q;
  readonly path: P;
  /** Pass to upstream calls: they end before the function does. */
  readonly budget: TimeBudget;
  /** With the caller's id, when the route has a caller. */
  readonly log: Logger;
  /** The caller the check found; undefined on public routes. */
  readonly caller: Caller | undefined;
}

export function httpFunction<B = undefined, Q = Record<string, never>, P = Record<string, never>>(
  definition: HttpFunctionDefinition<B, Q, P>,
  handler: (request: HttpRequest<B, Q, P>) => Promise<HttpResponse>,
) {
  const baseLog =
    definition.log ?? createLogger({ function: definition.name }, undefined, loadLogLevel());
  // middy's own early-timeout timer is off: answerInTime covers the whole invocation.
  const stack = middy<APIGatewayProxyEventV2, HttpResponse, Error, Context>({
    timeoutEarlyInMillis: 0,
  })
    .use(requestLog(baseLog, definition.name))
    .use(errorEnvelope(baseLog))
    .use(bodyLimit());
  const access = definition.access ?? 'public';
  if (access !== 'public') {
    // A route that needs a caller never runs without the check.
    if (!definition.callers) throw new Error(`${definition.name} needs callers to check`);
    stack.use(
      callerAuth(
        { identify: definition.callers, access, route: definition.route ?? definition.name },
        baseLog,
      ),
    );
  }
  if (definition.body) stack.use(jsonBody(baseLog));
  else if (definition.rawBody) stack.use(rawBody(definition.rawBody.contentTypes, baseLog));
  stack.use(validation(definition, baseLog));
  const handle = stack.handler(async (event, context: HttpContext) => {
    // validation (the last middleware) handed the request's state over on the context.
    const state = context.http;
    if (!state?.input) throw new Error('The middy stack did not hand over the request');
    return handler({
      event,
      context,
      method: event.requestContext.http.method.toUpperCase(),
      headers: state.headers,
      body: state.input.body as B,
      query: state.input.query as Q,
      path: state.input.path as P,
      budget: timeBudgetOf(context),
      log: state.log,
      caller: state.caller,
    });
  });
  return (event: APIGatewayProxyEventV2, context: Context): Promise<HttpResponse> =>
    answerInTime(handle(event, context), event, context, baseLog);
}
