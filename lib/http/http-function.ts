/**
 * The middy stack of every HTTP function: request log, error envelope with content
 * negotiation, the 6 MB body limit, caller authentication, JSON body parsing and zod
 * validation of path, query and body. Handlers receive typed, validated input.
 */
import { hash, timingSafeEqual } from 'node:crypto';
import middy from '@middy/core';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import type * as z from 'zod/mini';
import { currentTraceId, loadLogLevel } from '../core/config.js';
import {
  CallerAuthError,
  InputError,
  type InputIssue,
  PayloadTooLargeError,
  toServiceError,
  UpstreamTimeoutError,
} from '../core/errors.js';
import { type HeaderMap, mediaType } from '../core/headers.js';
import { LAMBDA_PAYLOAD_LIMIT_BYTES } from '../core/lambda-limits.js';
import { createLogger, defaultSink, describeError, type Logger } from '../core/log.js';
import { takeMetrics } from '../core/metrics.js';
import { budgetOf } from '../core/time-budget.js';
import type { CallBudget } from '../upstream/client.js';
import { encodeError, negotiateErrorFormat } from './envelope.js';
import { bodyByteLength, bodyBytes, callerJsonObject, headersOf, queryOf } from './request.js';
import type { HttpResult } from './responses.js';
import type { Route } from './routes/route.js';

/**
 * The platform gateway's body limit is 10 MB, but a synchronous Lambda invocation carries
 * at most 6 MB, so 6 MB is the documented limit and bigger bodies are refused here, before
 * anything is sent upstream. (Locally, serverless offline refuses bodies over 10 MB itself;
 * scripts/sls/offline-envelope.cjs gives that answer the same envelope.)
 */
export const MAX_BODY_BYTES = LAMBDA_PAYLOAD_LIMIT_BYTES;

type Schema<T> = z.ZodMiniType<T>;

interface HttpFunctionDefinition<B, Q, P> {
  /** Used in log lines. */
  readonly name: string;
  /** The caller tokens to accept; absent for unauthenticated routes (health). */
  readonly callerTokens?: () => Promise<readonly string[]>;
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
    body: input?.body,
    query: input?.query,
    path: input?.path,
    rawBody: input?.rawBody ? { contentTypes: input.rawBody } : undefined,
  };
}

export interface HttpRequest<B, Q, P> {
  readonly event: APIGatewayProxyEventV2;
  readonly context: Context;
  readonly headers: HeaderMap;
  readonly body: B;
  readonly query: Q;
  readonly path: P;
  /** Pass to upstream calls: they end before the function does. */
  readonly budget: CallBudget;
  readonly log: Logger;
}

/** Per-invocation state the middlewares hand to the handler, keyed by the Lambda context. */
interface RequestState {
  headers: HeaderMap;
  log: Logger;
  parsed?: { body: unknown; query: unknown; path: unknown };
}

const states = new WeakMap<Context, RequestState>();

type MiddyRequest = middy.Request<APIGatewayProxyEventV2, HttpResult, Error, Context>;

export function httpFunction<B = undefined, Q = Record<string, never>, P = Record<string, never>>(
  definition: HttpFunctionDefinition<B, Q, P>,
  handler: (request: HttpRequest<B, Q, P>) => Promise<HttpResult>,
) {
  const baseLog =
    definition.log ?? createLogger({ function: definition.name }, undefined, loadLogLevel());
  // middy's own early-timeout timer is off: answerInTime (below) covers the whole invocation.
  const stack = middy<APIGatewayProxyEventV2, HttpResult, Error, Context>({
    timeoutEarlyInMillis: 0,
  })
    .use(requestLog(baseLog, definition.name))
    .use(errorEnvelope(baseLog))
    .use(bodyLimit());
  if (definition.callerTokens) stack.use(callerAuth(definition.callerTokens, baseLog));
  if (definition.body) stack.use(jsonBody(baseLog));
  else if (definition.rawBody) stack.use(rawBody(definition.rawBody.contentTypes, baseLog));
  stack.use(validation(definition, baseLog));
  const handle = stack.handler(async (event, context) => {
    const state = stateOf(event, context, baseLog);
    const parsed = state.parsed ?? { body: undefined, query: {}, path: {} };
    return handler({
      event,
      context,
      headers: state.headers,
      body: parsed.body as B,
      query: parsed.query as Q,
      path: parsed.path as P,
      budget: budgetOf(context),
      log: state.log,
    });
  });
  return (event: APIGatewayProxyEventV2, context: Context): Promise<HttpResult> =>
    answerInTime(handle(event, context), event, context, baseLog);
}

/**
 * Kept back from the function's remaining time by the last-resort guard below. Smaller than the
 * upstream client's reserve, so that an upstream call's own deadline normally answers first.
 */
const GUARD_RESERVE_MS = 100;

/**
 * Whatever hangs (an upstream call, a slow secret fetch in the caller check), the caller gets
 * the 504/`510` envelope before the function's own timeout, never the runtime's timeout error.
 * middy's own early timeout races only the handler, not the middlewares before it.
 */
function answerInTime(
  work: Promise<HttpResult>,
  event: APIGatewayProxyEventV2,
  context: Context,
  log: Logger,
): Promise<HttpResult> {
  if (typeof context.getRemainingTimeInMillis !== 'function') return work;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<HttpResult>((resolve) => {
    timer = setTimeout(
      () => {
        log.error('no answer before the function timeout', { requestId: context.awsRequestId });
        resolve(encodeError(new UpstreamTimeoutError(), negotiateErrorFormat(headersOf(event))));
      },
      Math.max(context.getRemainingTimeInMillis() - GUARD_RESERVE_MS, 0),
    );
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

let coldStart = true;

/** True for the first invocation of this container only. */
function consumeColdStart(): boolean {
  const first = coldStart;
  coldStart = false;
  return first;
}

function stateOf(event: APIGatewayProxyEventV2, context: Context, baseLog: Logger): RequestState {
  let state = states.get(context);
  if (!state) {
    state = {
      headers: headersOf(event),
      log: baseLog.child({
        requestId: context.awsRequestId,
        apiRequestId: event.requestContext?.requestId,
        traceId: currentTraceId(),
        coldStart: consumeColdStart(),
      }),
    };
    states.set(context, state);
  }
  return state;
}

function requestLog(
  baseLog: Logger,
  functionName: string,
): middy.MiddlewareObj<APIGatewayProxyEventV2, HttpResult> {
  const startedAt = new WeakMap<object, number>();
  const done = (request: MiddyRequest) => {
    const log = stateOf(request.event, request.context, baseLog).log;
    const response = request.response;
    const status = response?.statusCode;
    const fields = {
      method: request.event.requestContext?.http?.method,
      route: request.event.routeKey,
      status,
      durationMs: Math.round(performance.now() - (startedAt.get(request) ?? performance.now())),
    };
    // The invocation's metrics ride on its request line; any that cannot, on lines of their own.
    const [metrics, ...more] = takeMetrics(functionName);
    if (status !== undefined && status >= 500) log.error('request failed', fields, metrics);
    else log.info('request', fields, metrics);
    for (const document of more) defaultSink(JSON.stringify(document));
    states.delete(request.context);
  };
  return {
    before: (request: MiddyRequest) => {
      startedAt.set(request, performance.now());
      stateOf(request.event, request.context, baseLog);
    },
    after: done,
    onError: done,
  };
}

function errorEnvelope(baseLog: Logger): middy.MiddlewareObj<APIGatewayProxyEventV2, HttpResult> {
  return {
    onError: (request: MiddyRequest) => {
      const error = toServiceError(request.error);
      const state = stateOf(request.event, request.context, baseLog);
      if (error.status >= 500) state.log.error('error', describeError(request.error));
      const encoded = encodeError(error, negotiateErrorFormat(state.headers));
      request.response = { ...encoded };
    },
  };
}

function bodyLimit(): middy.MiddlewareObj<APIGatewayProxyEventV2, HttpResult> {
  return {
    before: (request: MiddyRequest) => {
      if (bodyByteLength(request.event) > MAX_BODY_BYTES)
        throw new PayloadTooLargeError(MAX_BODY_BYTES);
    },
  };
}

function callerAuth(
  callerTokens: () => Promise<readonly string[]>,
  baseLog: Logger,
): middy.MiddlewareObj<APIGatewayProxyEventV2, HttpResult> {
  return {
    before: async (request: MiddyRequest) => {
      const header = stateOf(request.event, request.context, baseLog).headers.authorization ?? '';
      const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
      if (!match?.[1] || !tokenMatches(match[1], await callerTokens())) throw new CallerAuthError();
    },
  };
}

/** Digests of the accepted tokens, computed once per token list (once per fetched secret). */
const acceptedDigests = new WeakMap<readonly string[], Buffer[]>();

/** One-shot hash: cheaper than createHash (1.1 against 1.9 µs here), paid on every request. */
function sha256(value: string): Buffer {
  return hash('sha256', value, 'buffer');
}

/** Compares against every token in constant time: no early exit, equal-length digests. */
export function tokenMatches(presented: string, accepted: readonly string[]): boolean {
  let digests = acceptedDigests.get(accepted);
  if (!digests) {
    digests = accepted.map(sha256);
    acceptedDigests.set(accepted, digests);
  }
  const presentedDigest = sha256(presented);
  let matched = false;
  for (const digest of digests) matched = timingSafeEqual(presentedDigest, digest) || matched;
  return matched;
}

/** application/json, or a `+json` type; media types are case-insensitive. */
const JSON_MEDIA_TYPE = /^application\/([a-z0-9.!#$&^_-]+\+)?json$/;

function jsonBody(baseLog: Logger): middy.MiddlewareObj<APIGatewayProxyEventV2, HttpResult> {
  return {
    before: async (request: MiddyRequest) => {
      const headers = stateOf(request.event, request.context, baseLog).headers;
      if (request.event.body === undefined || request.event.body === '') {
        throw new InputError([{ path: 'body', issue: 'a JSON body is required' }]);
      }
      if (!JSON_MEDIA_TYPE.test(mediaType(headers['content-type'] ?? ''))) {
        throw new InputError([
          { path: 'headers.content-type', issue: 'expected application/json' },
        ]);
      }
      // Every JSON route takes an object.
      (request.event as { body: unknown }).body = callerJsonObject(bodyBytes(request.event));
    },
  };
}

function rawBody(
  contentTypes: readonly string[],
  baseLog: Logger,
): middy.MiddlewareObj<APIGatewayProxyEventV2, HttpResult> {
  const accepted = new Set(contentTypes.map((type) => type.toLowerCase()));
  return {
    before: (request: MiddyRequest) => {
      const headers = stateOf(request.event, request.context, baseLog).headers;
      if (!accepted.has(mediaType(headers['content-type'] ?? ''))) {
        throw new InputError([
          { path: 'headers.content-type', issue: `expected ${[...accepted].join(' or ')}` },
        ]);
      }
      if (bodyByteLength(request.event) === 0) {
        throw new InputError([{ path: 'body', issue: 'a non-empty body is required' }]);
      }
    },
  };
}

function validation<B, Q, P>(
  definition: HttpFunctionDefinition<B, Q, P>,
  baseLog: Logger,
): middy.MiddlewareObj<APIGatewayProxyEventV2, HttpResult> {
  return {
    before: (request: MiddyRequest) => {
      const issues: InputIssue[] = [];
      const check = <T>(
        where: string,
        schema: Schema<T> | undefined,
        input: unknown,
        empty: unknown,
      ) => {
        if (!schema) return empty;
        const result = schema.safeParse(input);
        if (result.success) return result.data;
        for (const issue of result.error.issues) {
          issues.push({ path: [where, ...issue.path.map(String)].join('.'), issue: issue.message });
        }
        return undefined;
      };
      const event = request.event;
      const parsed = {
        path: check('path', definition.path, event.pathParameters ?? {}, {}),
        query: check('query', definition.query, queryOf(event), {}),
        body:
          definition.rawBody && !definition.body
            ? bodyBytes(event)
            : check('body', definition.body, event.body, undefined),
      };
      if (issues.length > 0) throw new InputError(issues);
      stateOf(request.event, request.context, baseLog).parsed = parsed;
    },
  };
}
