/**
 * What one HTTP request carries through the stack, made once when the function is invoked and
 * handed to middy as the event its stack handles (`request.event` in every middleware), then to
 * the handler as a `RouteRequest`: nothing looks it up, and nothing of it lives in module scope,
 * because one process may serve many requests at once (Lambda Managed Instances).
 *
 * The state holds the request as received (headers lower-cased once, the body in one
 * vocabulary), what the checks found (the caller, the validated input), its logger, metrics
 * and the targets its request line names, and two things of its answer that more than one step
 * needs, each kept by a module of its own: its calls to the platform (request-calls.ts) and the
 * headers every answer to it carries (responses.ts). What one step keeps for itself stays in
 * that step (middy's `request.internal`, or a closure per request).
 */
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import type { AnswerHandOff, CallContext } from '../core/call-context.ts';
import { currentTraceId } from '../core/config.ts';
import type { HeaderMap } from '../core/headers.ts';
import type { LogFields, Logger } from '../core/log.ts';
import { Metrics } from '../core/metrics.ts';
import type { Caller } from './callers.ts';
import { RequestBody } from './request-body.ts';
import { RequestCalls } from './request-calls.ts';
import { CarriedHeaders } from './responses.ts';

/** The validated parts of a request. */
export interface RequestInput {
  readonly body: unknown;
  readonly query: unknown;
  readonly path: unknown;
}

/**
 * What a request that changes something changed, made, or meant to, for its request line: the
 * job ids, the action or trigger, the webhook and delivery, the answer it stored.
 */
export type RequestTargets = Readonly<
  Record<string, string | number | readonly string[] | undefined>
>;

let coldStart = true;

/** True for the first request of this process only. */
function consumeColdStart(): boolean {
  const first = coldStart;
  coldStart = false;
  return first;
}

/** Header names lower-cased (API Gateway already does; local emulation may not). */
function headersOf(event: APIGatewayProxyEventV2): HeaderMap {
  const headers: Record<string, string | undefined> = {};
  const given = event.headers ?? {};
  for (const name in given) headers[name.toLowerCase()] = given[name];
  return headers;
}

export class RequestState {
  /** The event as API Gateway sent it: read by the stack's checks, never by a handler. */
  readonly apiGatewayEvent: APIGatewayProxyEventV2;
  readonly lambda: Context;
  /** The caller's method, upper case. */
  readonly method: string;
  readonly headers: HeaderMap;
  readonly body: RequestBody;
  readonly metrics = new Metrics();
  /** performance.now() when the request reached the function. */
  readonly startedAt = performance.now();
  /**
   * The function's logger with the request's fields (request ids, trace id, cold start), and
   * the caller's id once the caller check has found it.
   */
  log: Logger;
  /** The request's caller, once the caller check has found it. */
  caller: Caller | undefined;
  /** The validated path parameters, once checked (before the caller's scope, which names them). */
  path: unknown = {};
  /** The validated input, once the last check has passed. */
  input: RequestInput | undefined;
  /** Its calls to the platform: whether one went out; none once it was answered early. */
  readonly calls = new RequestCalls();
  /** Headers every answer to it carries beside its own: its plans' RateLimit fields. */
  readonly carried = new CarriedHeaders();
  #targets: Record<string, string | number | readonly string[] | undefined> | undefined;

  constructor(event: APIGatewayProxyEventV2, lambda: Context, functionLog: Logger) {
    this.apiGatewayEvent = event;
    this.lambda = lambda;
    this.method = (event.requestContext?.http?.method ?? 'GET').toUpperCase();
    this.headers = headersOf(event);
    this.body = new RequestBody(event.body, event.isBase64Encoded);
    this.log = functionLog.child({
      requestId: lambda.awsRequestId,
      apiRequestId: event.requestContext?.requestId,
      // API Gateway passes the request's trace header on, per request; the environment's
      // variable is the process's, which one request at a time makes per request too.
      traceId: this.headers['x-amzn-trace-id'] ?? currentTraceId(),
      coldStart: consumeColdStart(),
    });
  }

  /**
   * The request's call context: its time left, its metrics and its log, for upstream calls, the
   * marks of a call going out (request-calls.ts), and where a large answer goes (`handOff`).
   */
  call(handOff?: AnswerHandOff): CallContext {
    const lambda = this.lambda;
    const calls = this.calls;
    return {
      remainingMs:
        typeof lambda.getRemainingTimeInMillis === 'function'
          ? () => lambda.getRemainingTimeInMillis()
          : undefined,
      metrics: this.metrics,
      log: this.log,
      beforeSend: calls.beforeSend,
      onSend: calls.onSend,
      handOff,
    };
  }

  /** Adds to the request's targets (what it changed), written on its request line. */
  target(targets: RequestTargets): void {
    this.#targets = { ...this.#targets, ...targets };
  }

  /** The targets as log fields (a list stays a JSON array), or undefined when none were named. */
  targetFields(): LogFields | undefined {
    return this.#targets;
  }
}

/** What a route's handler receives: the validated request, and nothing of the raw event. */
export class RouteRequest<B, Q, P> {
  readonly #state: RequestState;
  readonly #call: CallContext;

  /** `handOff`: where its answer goes when too large to return (a route that hands off). */
  constructor(state: RequestState, handOff?: AnswerHandOff) {
    this.#state = state;
    this.#call = state.call(handOff);
  }

  /** The caller's method, upper case. */
  get method(): string {
    return this.#state.method;
  }

  /** The path as the caller sent it (the catch-all route reads it). */
  get rawPath(): string {
    return this.#state.apiGatewayEvent.rawPath ?? '/';
  }

  get headers(): HeaderMap {
    return this.#state.headers;
  }

  /** The JSON body, validated by the route's schema (undefined for a route without one). */
  get body(): B {
    return this.#state.input?.body as B;
  }

  /** The body's bytes as received (decoded once; empty when there is none). */
  get bytes(): Buffer {
    return this.#state.body.bytes();
  }

  get query(): Q {
    return this.#state.input?.query as Q;
  }

  get path(): P {
    return this.#state.input?.path as P;
  }

  /** The caller the check found; undefined on routes that need none. */
  get caller(): Caller | undefined {
    return this.#state.caller;
  }

  /** The request's logger (with its caller's id). */
  get log(): Logger {
    return this.#state.log;
  }

  /** Pass to upstream calls: they end before the function does, and count on this request. */
  get call(): CallContext {
    return this.#call;
  }

  /** Names what the request changes (job ids, the action...), for its request line. */
  target(targets: RequestTargets): void {
    this.#state.target(targets);
  }

  /** Headers every answer to the request carries, an error's too (its RateLimit fields). */
  answerHeaders(headers: Readonly<Record<string, string>>): void {
    this.#state.carried.carry(headers);
  }
}
