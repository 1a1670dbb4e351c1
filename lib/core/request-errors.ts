/**
 * What a request did wrong, or may not do, as its caller is told: its input, who sent it (a
 * caller's token and scope, a webhook's signature, and the lists of them when they cannot be
 * checked), its route and method, its size, and a bulk call that found more than it expected.
 */
import { type InputIssue, retryAfterOf, ServiceError } from './service-error.ts';

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
  readonly authReason: CallerAuthReason;

  constructor(authReason: CallerAuthReason = 'unknown-or-expired-token') {
    super({
      status: 401,
      code: '200',
      message: 'Authentication Failed',
      details: CALLER_AUTH_DETAILS[authReason],
      reason: authReason,
    });
    this.authReason = authReason;
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
      headers: { 'Retry-After': retryAfterOf(retryAfterSeconds) },
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
      headers: { 'Retry-After': retryAfterOf(retryAfterSeconds) },
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
  readonly found: number;

  constructor(found: number, expectAtMost: number) {
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
    this.found = found;
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

/** 6 MB, 10 MB, 16 KB: a limit as people write it. */
function sizeText(bytes: number): string {
  const mb = bytes / (1024 * 1024);
  if (Number.isInteger(mb)) return `${mb} MB`;
  const kb = bytes / 1024;
  return Number.isInteger(kb) ? `${kb} KB` : `${bytes} bytes`;
}
