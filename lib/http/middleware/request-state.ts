/**
 * What the middlewares of one request share, kept on middy's request (`request.internal`), as
 * middy's own middlewares keep theirs: the headers, the request's logger, when it started, and
 * the validated input. The last middleware hands it to the handler on the context, as middy's
 * `setToContext` does.
 */
import type middy from '@middy/core';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { currentTraceId } from '../../core/config.js';
import type { HeaderMap } from '../../core/headers.js';
import type { Logger } from '../../core/log.js';
import type { Caller } from '../callers.js';
import { headersOf } from '../request.js';
import type { HttpResponse } from '../responses.js';

/** The validated parts of a request. */
export interface RequestInput {
  readonly body: unknown;
  readonly query: unknown;
  readonly path: unknown;
}

export interface RequestState {
  readonly headers: HeaderMap;
  /**
   * The function's logger with the request's fields (request ids, trace id, cold start), and
   * the caller's id once the caller check has found it.
   */
  log: Logger;
  /** The request's caller, once the caller check has found it. */
  caller?: Caller;
  /** performance.now() when the request entered the stack. */
  readonly startedAt: number;
  input?: RequestInput;
}

type HttpInternal = { http?: RequestState };

export type HttpMiddyRequest = middy.Request<
  APIGatewayProxyEventV2,
  HttpResponse,
  Error,
  Context,
  HttpInternal
>;

export type HttpMiddleware = middy.MiddlewareObj<
  APIGatewayProxyEventV2,
  HttpResponse,
  Error,
  Context,
  HttpInternal
>;

let coldStart = true;

/** True for the first request of this container only. */
function consumeColdStart(): boolean {
  const first = coldStart;
  coldStart = false;
  return first;
}

/** The request's state, made when it is first asked for (by the first middleware). */
export function stateOf(request: HttpMiddyRequest, baseLog: Logger): RequestState {
  let state = request.internal.http;
  if (!state) {
    state = {
      headers: headersOf(request.event),
      log: baseLog.child({
        requestId: request.context.awsRequestId,
        apiRequestId: request.event.requestContext?.requestId,
        traceId: currentTraceId(),
        coldStart: consumeColdStart(),
      }),
      startedAt: performance.now(),
    };
    request.internal.http = state;
  }
  return state;
}

/** The context as the handler receives it: the request's state rides on it. */
export type HttpContext = Context & { readonly http?: RequestState };
