/**
 * The one error taxonomy. Every failure a caller can see is a
 * ServiceError: an HTTP status, the platform's errorCode (always a string) and message, and
 * optional details. Anything else that escapes a handler is reported as 500/`900`.
 */

export interface InputIssue {
  readonly path: string;
  readonly issue: string;
}

type ErrorDetails = readonly InputIssue[] | string;

interface ServiceErrorInit {
  readonly status: number;
  readonly code: string;
  readonly message: string;
  readonly details?: ErrorDetails | undefined;
  /**
   * Why, in a few words, for the request's log line beside the errorCode (never a value the
   * caller sent, a token or a secret): `missing-token`, `unknown input: query.pgae`, ...
   */
  readonly reason?: string | undefined;
  /** Extra response headers, such as `Allow` on a 405. */
  readonly headers?: Readonly<Record<string, string>> | undefined;
  readonly cause?: unknown;
}

export class ServiceError extends Error {
  override name = 'ServiceError';
  readonly status: number;
  readonly code: string;
  readonly details: ErrorDetails | undefined;
  readonly headers: Readonly<Record<string, string>>;
  /** For the log line: why, in a few words, never a value (ServiceErrorInit.reason). */
  readonly reason: string | undefined;

  constructor(init: ServiceErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.status = init.status;
    this.code = init.code;
    this.details = init.details;
    this.headers = init.headers ?? {};
    this.reason = init.reason;
  }
}

/** Malformed input: failed validation, wrong Content-Type, bad JSON, bad path parameter. */
export class InputError extends ServiceError {
  override name = 'InputError';
  constructor(details: readonly InputIssue[], message = 'Bad Request Exception') {
    super({ status: 400, code: '100', message, details, reason: inputReason(details) });
  }
}

/**
 * The log's reason of an input error: the paths at fault. An unknown member's name came from the
 * caller and may be anything: it is logged as `(unknown)`.
 */
function inputReason(details: readonly InputIssue[]): string {
  const paths = details.map(({ path, issue }) =>
    issue.startsWith('unknown ') ? `${path.split('.')[0]}.(unknown)` : path,
  );
  return `invalid input: ${[...new Set(paths)].join(' ')}`;
}

/**
 * What was wrong with a request's credentials, as far as the caller may be told: no
 * Authorization header; one that is not `Bearer <token>`; a token that is unknown or has expired
 * (one answer for both, so that no answer tells which tokens exist).
 */
export type CallerAuthReason = 'missing-token' | 'not-bearer' | 'unknown-or-expired-token';

const CALLER_AUTH_DETAILS: Readonly<Record<CallerAuthReason, string>> = {
  'missing-token': 'No Authorization header: send "Authorization: Bearer <token>".',
  'not-bearer':
    'The Authorization header is not a bearer token: send "Authorization: Bearer <token>".',
  'unknown-or-expired-token': 'The bearer token is unknown or has expired.',
};

export class CallerAuthError extends ServiceError {
  override name = 'CallerAuthError';
  constructor(readonly authReason: CallerAuthReason = 'unknown-or-expired-token') {
    super({
      status: 401,
      code: '200',
      message: 'Authentication Failed',
      details: CALLER_AUTH_DETAILS[authReason],
      reason: authReason,
    });
  }
}

/**
 * A known caller without the route's scope: 403 / `210`, the platform's "Permission Denied".
 * The details name the scope it lacks (from the registry), never a token.
 */
export class CallerScopeError extends ServiceError {
  override name = 'CallerScopeError';
  constructor(scope: string) {
    super({
      status: 403,
      code: '210',
      message: 'Permission Denied',
      details: `This caller lacks the scope "${scope}".`,
      reason: `missing-scope ${scope}`,
    });
  }
}

/**
 * The callers cannot be trusted just now: the secret that lists them could not be refreshed for
 * longer than the bound on a stale secret (CALLERS_MAX_STALE_SECONDS), so a revoked token might
 * still be in it. The caller may come back after `retryAfterSeconds`.
 */
export class CallersUnavailableError extends ServiceError {
  override name = 'CallersUnavailableError';
  constructor(retryAfterSeconds: number) {
    super({
      status: 503,
      code: '500',
      message: 'Service Unavailable',
      details: 'The list of callers could not be refreshed; try again later.',
      reason: 'callers-unavailable',
      headers: { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))) },
    });
  }
}

/**
 * The webhooks cannot be trusted just now: their secret could not be refreshed for longer than
 * the bound on a stale secret (CALLERS_MAX_STALE_SECONDS), so a key that was rotated out might
 * still be in it. A sender delivers again later (`Retry-After`).
 */
export class WebhooksUnavailableError extends ServiceError {
  override name = 'WebhooksUnavailableError';
  constructor(retryAfterSeconds: number) {
    super({
      status: 503,
      code: '500',
      message: 'Service Unavailable',
      details: 'The webhooks could not be refreshed; try again later.',
      reason: 'webhooks-unavailable',
      headers: { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))) },
    });
  }
}

/** 401 / `200` for a webhook delivery, with the reason (never a signature or a secret) in details. */
export class WebhookSignatureError extends ServiceError {
  override name = 'WebhookSignatureError';
  constructor(reason: string) {
    super({ status: 401, code: '200', message: 'Authentication Failed', details: reason, reason });
  }
}

/**
 * A bulk call found more than its caller said it would (cancel-reserved's `expectAtMost`), and
 * did nothing: 409 with `100`, the count found in details.
 */
export class TooManyMatchesError extends ServiceError {
  override name = 'TooManyMatchesError';
  constructor(
    readonly found: number,
    expectAtMost: number,
  ) {
    super({
      status: 409,
      code: '100',
      message: 'Conflict',
      details: [
        {
          path: 'expectAtMost',
          issue: `the search found ${found} reserved jobs, more than ${expectAtMost}; nothing was cancelled`,
        },
      ],
      reason: 'too-many-matches',
    });
  }
}

export class NotFoundError extends ServiceError {
  override name = 'NotFoundError';
  constructor(details?: string) {
    super({
      status: 404,
      code: '300',
      message: 'Not Found Exception',
      details,
      reason: 'not-found',
    });
  }
}

export class MethodNotAllowedError extends ServiceError {
  override name = 'MethodNotAllowedError';
  constructor(allow: readonly string[]) {
    super({
      status: 405,
      code: '100',
      message: 'Method Not Allowed',
      details: `Allowed: ${allow.join(', ')}`,
      headers: { Allow: allow.join(', ') },
      reason: 'method-not-allowed',
    });
  }
}

/**
 * The client refuses every coding the resource is served in (`Accept-Encoding: identity`, or
 * `gzip;q=0`, for a file of the reference, which is served gzipped only).
 */
export class NotAcceptableError extends ServiceError {
  override name = 'NotAcceptableError';
  constructor(details: string) {
    super({
      status: 406,
      code: '100',
      message: 'Not Acceptable',
      details,
      reason: 'not-acceptable',
    });
  }
}

export class PayloadTooLargeError extends ServiceError {
  override name = 'PayloadTooLargeError';
  constructor(limitBytes: number) {
    super({
      status: 413,
      code: '430',
      message: 'Request Entity Too Large',
      details: `The request body is over the limit of ${sizeText(limitBytes)} (${limitBytes} bytes).`,
      reason: 'body-too-large',
    });
  }
}

/** Which plan refused a request: the caller's own, or the account's (every caller's together). */
export type PlanHolder = 'caller' | 'account';

/** Seconds for a Retry-After header: whole, at least 1. */
function retryAfterOf(seconds: number): string {
  return String(Math.max(1, Math.ceil(seconds)));
}

/**
 * Over a plan's rate (its token bucket, `rateRps` with `burst`): 429 / `420`, the platform's
 * "Rate Limited". `headers` carries the RateLimit fields of the plans that apply; Retry-After is
 * the time until the bucket holds one request again.
 */
export class RateLimitedError extends ServiceError {
  override name = 'RateLimitedError';
  constructor(
    readonly plan: PlanHolder,
    retryAfterSeconds: number,
    headers: Readonly<Record<string, string>> = {},
  ) {
    super({
      status: 429,
      code: '420',
      message: 'Rate Limited',
      details: `Over the ${plan} plan's rateRps; retry after the Retry-After seconds.`,
      reason: `rate-limited ${plan} rateRps`,
      headers: { ...headers, 'Retry-After': retryAfterOf(retryAfterSeconds) },
    });
  }
}

/**
 * Over one of a plan's quotas (`dayQuotaRequest`, `monthQuotaCharacters.translate`, ...): 429 /
 * `400`, the platform's "Quota Exceeded". Retry-After runs until the window resets (the next UTC
 * day or month). `details` names the plan and the limit; never another caller.
 */
export class QuotaExceededError extends ServiceError {
  override name = 'QuotaExceededError';
  constructor(
    readonly plan: PlanHolder,
    readonly limit: string,
    retryAfterSeconds: number,
    headers: Readonly<Record<string, string>> = {},
  ) {
    super({
      status: 429,
      code: '400',
      message: 'Quota Exceeded',
      details: `Over the ${plan} plan's ${limit}; it resets with the window (Retry-After).`,
      reason: `quota-exceeded ${plan} ${limit}`,
      headers: { ...headers, 'Retry-After': retryAfterOf(retryAfterSeconds) },
    });
  }
}

/**
 * A second long-running request of one caller while its first still runs (a second
 * `cancel-reserved` at once): 429 / `410`, the platform's "Throttle Limited".
 */
export class ThrottleLimitedError extends ServiceError {
  override name = 'ThrottleLimitedError';
  constructor(what: string, retryAfterSeconds: number) {
    super({
      status: 429,
      code: '410',
      message: 'Throttle Limited',
      details: `A ${what} of this caller is running; one at a time.`,
      reason: `throttle-limited ${what}`,
      headers: { 'Retry-After': retryAfterOf(retryAfterSeconds) },
    });
  }
}

/**
 * The usage counters could not be read or written, and the stage holds plans closed
 * (`USAGE_STORE_FAILURE=closed`): 503 / `500`, nothing sent upstream.
 */
export class UsageStoreUnavailableError extends ServiceError {
  override name = 'UsageStoreUnavailableError';
  constructor(cause?: unknown) {
    super({
      status: 503,
      code: '500',
      message: 'Service Unavailable',
      details: 'The usage counters could not be reached; try again later.',
      reason: 'usage-store-unavailable',
      headers: { 'Retry-After': '1' },
      cause,
    });
  }
}

/** 6 MB, 10 MB, 16 KB: a limit as people write it. */
function sizeText(bytes: number): string {
  const mb = bytes / (1024 * 1024);
  if (Number.isInteger(mb)) return `${mb} MB`;
  const kb = bytes / 1024;
  return Number.isInteger(kb) ? `${kb} KB` : `${bytes} bytes`;
}

/** The upstream could not be reached: refused, reset, DNS failure. */
export class UpstreamUnreachableError extends ServiceError {
  override name = 'UpstreamUnreachableError';
  /**
   * False when nothing of the request can have reached the upstream (the connection was
   * refused, the name did not resolve); true when it may have (a reset after sending).
   */
  readonly maybeSent: boolean;
  constructor(cause?: unknown, maybeSent = true) {
    super({
      status: 503,
      code: '500',
      message: 'Endpoint Error',
      reason: 'upstream-unreachable',
      cause,
    });
    this.maybeSent = maybeSent;
  }
}

export class UpstreamTimeoutError extends ServiceError {
  override name = 'UpstreamTimeoutError';
  constructor(cause?: unknown) {
    super({
      status: 504,
      code: '510',
      message: 'Endpoint Timeout',
      reason: 'upstream-timeout',
      cause,
    });
  }
}

/**
 * The upstream's answer is larger than a Lambda function can return (its synchronous response
 * payload is at most 6 MB, serialized). Nothing of it is sent: half an answer is worse than none.
 */
export class UpstreamResponseTooLargeError extends ServiceError {
  override name = 'UpstreamResponseTooLargeError';
  /**
   * `handOff`: an answer that could not be handed off either (over the hand-off's ceiling, or
   * its bucket failed; lib/hand-off/bucket.ts): 502/`900` with its own details and reason.
   */
  constructor(
    limitBytes: number,
    handOff?: { readonly details: string; readonly reason: string; readonly cause?: unknown },
  ) {
    super({
      status: 502,
      code: handOff ? '900' : '520',
      message: 'Response Too Large',
      details: `The upstream answer is over ${limitBytes} bytes, the most a Lambda function can return.`,
      reason: 'upstream-response-too-large',
      ...handOff,
    });
  }
}

/**
 * No valid platform credentials are available yet (the secret could not be read, or is
 * invalid, and no good copy is cached). The caller may come back after `retryAfterSeconds`.
 */
export class CredentialsUnavailableError extends ServiceError {
  override name = 'CredentialsUnavailableError';
  constructor(retryAfterSeconds: number, cause?: unknown) {
    super({
      status: 503,
      code: '500',
      message: 'Service Unavailable',
      details: 'The platform credentials are not available; try again later.',
      reason: 'credentials-unavailable',
      headers: { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))) },
      cause,
    });
  }
}

/**
 * The service's configuration is wrong: its secret does not validate, does not exist, or the
 * function's role may not read it. Retrying cannot help until an operator corrects it, so this
 * is no 503 "try again later": 500/`900`. The log line names the cause (the field, never a
 * value), and raises the ConfigurationErrors metric that an alarm watches; the answer names
 * neither.
 */
export class ConfigurationError extends ServiceError {
  override name = 'ConfigurationError';
  constructor(cause?: unknown) {
    super({
      status: 500,
      code: '900',
      message: 'Unexpected Error',
      details:
        "The service's configuration is invalid (its secret cannot be used). Its operator must " +
        'correct it; retrying will not help until then.',
      reason: 'configuration-invalid',
      cause,
    });
  }
}

/**
 * The platform refused the deployment's own credentials (a revoked API key, a wrong client
 * secret, signing keys it does not know): a 401 to a call made with them, or a 403 of the
 * gateway's own, after they were fetched again once. The caller's token was fine: passing the
 * 401 on would have it rotate a token that works, so this is the operator's 500/`900`, counted
 * in the ConfigurationErrors metric (Cause `credentials`) that an alarm watches. `refusal` is the
 * platform's answer, decoded (the log line and the queue consumer read it; the caller never sees
 * it).
 */
export class CredentialsRefusedError extends ServiceError {
  override name = 'CredentialsRefusedError';
  constructor(
    readonly refusal: UpstreamError,
    /** Which credentials, in words: `the signing keys (iam, apiKey)`. Never a value. */
    readonly credentials: string,
  ) {
    super({
      status: 500,
      code: '900',
      message: 'Unexpected Error',
      details:
        `The platform refused this service's own credentials (${credentials}). Its operator ` +
        'must correct the secret; retrying will not help until then.',
      reason: `credentials-refused ${refusal.status}/${refusal.code}`,
      cause: refusal,
    });
  }
}

/**
 * The upstream answered with an error; status, code and message are the upstream's own. Its
 * reason is `upstream-<code>` unless it is given one (the scan job hints': `upstream-901 cancel`).
 */
export class UpstreamError extends ServiceError {
  override name = 'UpstreamError';
  constructor(init: ServiceErrorInit) {
    super({ ...init, reason: init.reason ?? `upstream-${init.code}` });
  }
}

export class UnexpectedError extends ServiceError {
  override name = 'UnexpectedError';
  constructor(cause?: unknown) {
    super({ status: 500, code: '900', message: 'Unexpected Error', reason: 'unexpected', cause });
  }
}

/**
 * Whatever was thrown, as the ServiceError a caller may see: a setting found missing when it is
 * used (ConfigError) is the configuration's fault, not an unexpected one.
 */
export function toServiceError(thrown: unknown): ServiceError {
  if (thrown instanceof ServiceError) return thrown;
  return thrown instanceof ConfigError
    ? new ConfigurationError(thrown)
    : new UnexpectedError(thrown);
}

// ---------------------------------------------------------------------------------------
// Failures that never reach a caller as such: configuration, the secret, the watcher's state.

/** The environment is invalid: the function's init fails, naming the variable. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** The secret could not be read or does not validate (names fields, never values). */
export class SecretError extends Error {
  override readonly name = 'SecretError';
  /**
   * True when trying again cannot help until an operator acts: the document does not validate,
   * or the secret does not exist, or the function may not read it. False for what may pass
   * (a timeout, throttling, Secrets Manager's own failure).
   */
  readonly misconfigured: boolean;
  constructor(message: string, options: { cause?: unknown; misconfigured?: boolean } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.misconfigured = options.misconfigured ?? false;
  }
}

/** The watcher's local state file is unreadable: refused rather than started afresh. */
export class WatcherStateError extends Error {
  override readonly name = 'WatcherStateError';
}

/**
 * A watcher run that did not finish its work; thrown so that Lambda reports the run as failed.
 * What reaches Lambda's own error log line is its name and message, never a stack.
 */
export class WatchRunError extends Error {
  override readonly name = 'WatchRunError';
  constructor(message: string) {
    super(message);
    this.stack = `${this.name}: ${message}`;
  }
}

/**
 * Secrets Manager refused a read, or answered something that is not a secret. `type` is its
 * exception's name (`ResourceNotFoundException`, ...), never anything of the secret.
 */
export class SecretReadError extends Error {
  override readonly name = 'SecretReadError';
  constructor(
    message: string,
    readonly type: string,
  ) {
    super(message);
  }
}

/** The secrets extension could not be reached at all (its layer is missing): the SDK serves. */
export class ExtensionUnreachableError extends Error {
  override readonly name = 'ExtensionUnreachableError';
}
