/**
 * Function execution: runs an action or a trigger through its gateway
 * execution URL from the secret. Execution URLs need no signature by default (seed spec,
 * Authentication), so calls go out unsigned, with the entry's own API key when it has one.
 *
 * What the action answers (any status, its Content-Type, its body) is the caller's answer;
 * only an error the gateway produced itself (authentication, quota, endpoint error, timeout)
 * becomes this service's envelope.
 */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import * as z from 'zod/mini';
import { InputError, MethodNotAllowedError, NotFoundError } from '../core/errors.js';
import { type HeaderMap, mediaType } from '../core/headers.js';
import { perRuntime } from '../core/per-runtime.js';
import type { NamePath } from '../core/schemas.js';
import { bodyBytes, callerJson, callerJsonObject } from '../http/request.js';
import { type HttpResult, passThrough } from '../http/responses.js';
import { ANY_METHODS } from '../http/routes/route.js';
import type { PlatformSecret } from '../secrets/schema.js';
import type { SecretStore } from '../secrets/store.js';
import { identifyAnswer, originHeaderName } from '../upstream/answer-origin.js';
import type { CallBudget, UpstreamClient, UpstreamResponse } from '../upstream/client.js';
import { decodeUpstreamError } from '../upstream/error-decoding.js';
import { gatewayHeaderNames } from '../upstream/gateway/signer.js';

export type ExecutionKind = 'action' | 'trigger';

/** An action or trigger resolved from the secret. */
export interface ExecutionTarget {
  readonly kind: ExecutionKind;
  readonly name: string;
  readonly url: string;
  /** Web actions accept the REST methods; ordinary actions and triggers only POST. */
  readonly web: boolean;
  readonly apiKey?: string | undefined;
}

interface ExecutionRequest {
  readonly kind: ExecutionKind;
  readonly name: string;
  /** The caller's method, upper case. */
  readonly method: string;
  /** `result` of the caller's query: true returns the action's result only. */
  readonly result: boolean;
  /** The caller's JSON body as sent (already checked to be JSON), or undefined. */
  readonly body?: string | undefined;
}

/** The methods a web action is forwarded with (OpenWhisk web actions of the HTTP type). */
const WEB_ACTION_METHODS: readonly string[] = ANY_METHODS;
const POST_ONLY = ['POST'];
/**
 * Methods after which an execution may be repeated when the call failed. Running an action
 * runs code: a PUT or DELETE to a web action is not known to be idempotent, so only the
 * methods that never change anything by HTTP's definition are repeated.
 */
const REPEATABLE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** OpenWhisk names the activation of an answer in this header. */
const ACTIVATION_ID_HEADER = 'x-openwhisk-activation-id';

type ExecutionPath = NamePath;

export const executionQuerySchema = z.object({
  result: z.pipe(
    z._default(z.enum(['true', 'false'], 'expected true or false'), 'true'),
    z.transform((value) => value === 'true'),
  ),
});
export type ExecutionQuery = z.infer<typeof executionQuerySchema>;

/** Looks the name up in the secret; an unknown name is a 404 and nothing is sent. */
export function resolveTarget(
  secret: PlatformSecret,
  kind: ExecutionKind,
  name: string,
): ExecutionTarget {
  const entries = kind === 'action' ? secret.actions : secret.triggers;
  const entry = entries && Object.hasOwn(entries, name) ? entries[name] : undefined;
  if (!entry) throw new NotFoundError(`No ${kind} named "${name}".`);
  const web = kind === 'action' && 'web' in entry && entry.web === true;
  return { kind, name, url: entry.url, web, apiKey: entry.apiKey };
}

/** The methods a target runs with. */
function allowedMethodsOf(target: ExecutionTarget): readonly string[] {
  return target.web ? WEB_ACTION_METHODS : POST_ONLY;
}

/**
 * The execution URL with `blocking=true` and `result` added to whatever query it already has.
 * The existing query is kept as written (not re-encoded); a `blocking` or `result` it already
 * carries is replaced, so the platform never sees two values.
 */
export function executionUrl(base: string, result: boolean): URL {
  const url = new URL(base);
  const kept = url.search
    .slice(1)
    .split('&')
    .filter((pair) => pair !== '' && !['blocking', 'result'].includes(queryKeyOf(pair)));
  url.search = [...kept, 'blocking=true', `result=${result}`].join('&');
  return url;
}

function queryKeyOf(pair: string): string {
  const raw = pair.split('=', 1)[0] ?? '';
  try {
    return decodeURIComponent(raw.replaceAll('+', ' '));
  } catch {
    return raw;
  }
}

/**
 * The caller's body as JSON text, or undefined when there is none. A body must be JSON with
 * `Content-Type: application/json`; ordinary actions and triggers need one, a JSON object
 * (their parameters); a web action's is optional, and GET and HEAD carry none.
 */
export function executionBody(
  target: ExecutionTarget,
  method: string,
  raw: Buffer,
  contentType: string | undefined,
): string | undefined {
  if (raw.length === 0) {
    if (target.web) return undefined;
    throw new InputError([{ path: 'body', issue: 'a JSON object of parameters is required' }]);
  }
  if (method === 'GET' || method === 'HEAD') {
    throw new InputError([{ path: 'body', issue: `a ${method} request carries no body` }]);
  }
  if (mediaType(contentType ?? '') !== 'application/json') {
    throw new InputError([{ path: 'headers.content-type', issue: 'expected application/json' }]);
  }
  // A web action takes any JSON; an ordinary action a JSON object of parameters.
  if (target.web) callerJson(raw);
  else callerJsonObject(raw, 'expected a JSON object of parameters');
  return raw.toString('utf8');
}

/**
 * True when the gateway answered instead of the action (answerOrigin.ts). An action that answers
 * with a body of its own, even an `{"error":...}` one, is passed through.
 */
export function isGatewayAnswer(response: UpstreamResponse, vendor: string): boolean {
  if (response.status < 400 && response.headers[originHeaderName(vendor)] === undefined) {
    return false;
  }
  const { origin } = identifyAnswer(response.status, response.headers, response.body, vendor);
  return origin !== 'endpoint';
}

interface FunctionExecutionOptions {
  readonly secrets: SecretStore;
  readonly http: UpstreamClient;
  readonly vendor: string;
}

/** Runs actions and triggers for callers (HTTP routes) and for the invocation queue. */
export class FunctionExecution {
  constructor(private readonly options: FunctionExecutionOptions) {}

  /** The target of a request, checked: known name, allowed method. Nothing is sent. */
  async target(kind: ExecutionKind, name: string, method: string): Promise<ExecutionTarget> {
    const target = resolveTarget(await this.options.secrets.get(), kind, name);
    const allowed = allowedMethodsOf(target);
    if (!allowed.includes(method)) throw new MethodNotAllowedError(allowed);
    return target;
  }

  /**
   * Sends the execution and returns the action's own answer, whatever its status. A gateway
   * error is thrown as the decoded UpstreamError.
   */
  async execute(
    target: ExecutionTarget,
    request: Pick<ExecutionRequest, 'method' | 'result' | 'body'>,
    budget: CallBudget = {},
  ): Promise<UpstreamResponse> {
    const headers: Record<string, string> = {};
    if (request.body !== undefined) headers['content-type'] = 'application/json';
    if (target.apiKey) headers[gatewayHeaderNames(this.options.vendor).apiKey] = target.apiKey;
    const response = await this.options.http.send(
      {
        method: request.method,
        url: executionUrl(target.url, request.result),
        headers,
        body: request.body,
        // Never repeated once it may have reached the action.
        idempotent: REPEATABLE_METHODS.has(request.method),
        // The action's own error answers go back to the caller whole.
        passesErrors: true,
        service: `${target.kind}s`,
      },
      budget,
    );
    if (isGatewayAnswer(response, this.options.vendor)) throw decodeUpstreamError(response);
    return response;
  }
}

/** The caller's request to an action or trigger route, as the HTTP stack hands it over. */
interface CallerExecution {
  readonly event: Pick<APIGatewayProxyEventV2, 'body' | 'isBase64Encoded' | 'requestContext'>;
  readonly headers: HeaderMap;
  readonly path: ExecutionPath;
  readonly query: ExecutionQuery;
  readonly budget: CallBudget;
}

/**
 * An HTTP route's execution: checks name, method and body before anything is sent, then
 * returns the action's answer byte for byte (status, Content-Type, body).
 */
export async function executeForCaller(
  functions: FunctionExecution,
  kind: ExecutionKind,
  request: CallerExecution,
): Promise<HttpResult> {
  const method = request.event.requestContext.http.method.toUpperCase();
  const target = await functions.target(kind, request.path.name, method);
  const body = executionBody(
    target,
    method,
    bodyBytes(request.event),
    request.headers['content-type'],
  );
  const answer = await functions.execute(
    target,
    { method, result: request.query.result, body },
    request.budget,
  );
  const result = passThrough(answer);
  // The platform names the activation that produced the answer; callers need it for support.
  const activationId = answer.headers[ACTIVATION_ID_HEADER];
  if (activationId) result.headers = { ...result.headers, [ACTIVATION_ID_HEADER]: activationId };
  return result;
}

/** The container's function-execution client (execution URLs come from the secret). */
export const functionExecutionOf = perRuntime(
  (runtime) =>
    new FunctionExecution({
      secrets: runtime.secrets,
      http: runtime.http,
      vendor: runtime.config.gatewayVendor,
    }),
);
