/**
 * The shape of every failure a caller can see, a ServiceError: an HTTP status, the platform's
 * errorCode (always a string) and message, optional details and headers, and why, for the
 * request's log line. And the two answers that no family of the taxonomy (errors.ts) names:
 * a configuration only an operator can mend, and anything unexpected; whatever else escapes a
 * handler is answered as one of them (`toServiceError`).
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
