/**
 * What came of a call upstream, as the caller is told: the platform's own error (its status,
 * code and message), the platform out of reach or too slow, an answer too large to return, and
 * the deployment's own credentials not there yet or refused.
 */
import { retryAfterOf, ServiceError, type ServiceErrorInit } from './service-error.ts';

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
      headers: { 'Retry-After': retryAfterOf(retryAfterSeconds) },
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
  readonly refusal: UpstreamError;
  /** Which credentials, in words: `the signing keys (iam, apiKey)`. Never a value. */
  readonly credentials: string;

  constructor(refusal: UpstreamError, credentials: string) {
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
    this.refusal = refusal;
    this.credentials = credentials;
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
