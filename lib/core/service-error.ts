/**
 * Every failure a caller can see is a ServiceError: a status, the platform's errorCode and
 * message, and a reason for the log line. This module also holds the two 500s no family of
 * errors.ts names. `toServiceError` turns anything else a handler throws into one of them.
 */
import { ConfigError } from './internal-errors.ts';

export interface InputIssue {
  readonly path: string;
  readonly issue: string;
}

type ErrorDetails = readonly InputIssue[] | string;

export interface ServiceErrorInit {
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

/** Seconds for a Retry-After header: whole, at least 1. */
export function retryAfterOf(seconds: number): string {
  return String(Math.max(1, Math.ceil(seconds)));
}

/**
 * What a caller gets (500/`900`) when only an operator can mend the service: its secret is
 * invalid, missing or unreadable, or a setting is missing (a ConfigError). Retrying cannot help,
 * so it is not a 503. The log line names the field, never a value. For a bad secret, that line
 * also carries the ConfigurationErrors metric an alarm watches. The response names neither.
 */
export class MisconfiguredError extends ServiceError {
  override name = 'MisconfiguredError';
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

export class UnexpectedError extends ServiceError {
  override name = 'UnexpectedError';
  constructor(cause?: unknown) {
    super({ status: 500, code: '900', message: 'Unexpected Error', reason: 'unexpected', cause });
  }
}

/**
 * Whatever was thrown, as the ServiceError a caller may see. A setting found missing when it is
 * used (a ConfigError) is the operator's fault, so the caller gets a MisconfiguredError.
 */
export function toServiceError(thrown: unknown): ServiceError {
  if (thrown instanceof ServiceError) return thrown;
  return thrown instanceof ConfigError
    ? new MisconfiguredError(thrown)
    : new UnexpectedError(thrown);
}
