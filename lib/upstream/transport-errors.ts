/**
 * How an attempt that got no whole answer ended, from the error undici raised: the service error
 * to raise and the failure kind the retry table decides on (retry-policy.ts). And the wait an
 * upstream asks for before the next attempt (Retry-After), and how a call that failed is counted.
 */
import {
  UnexpectedError,
  UpstreamResponseTooLargeError,
  UpstreamTimeoutError,
  UpstreamUnreachableError,
} from '../core/errors.ts';
import type { TransportFailure } from './retry-policy.ts';

/** Errors raised before any byte of the request can have reached the upstream. */
const NOT_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'UND_ERR_CONNECT_TIMEOUT',
]);
/** undici's own stall timers: only a backstop behind the deadline. */
const STALL_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

export interface TransportError {
  readonly error: Error;
  readonly failure: TransportFailure;
}

/**
 * What an attempt's error means. `expired`: the call's deadline had passed; `answered`: the
 * answer's head had arrived (the request surely reached the upstream). Throws for a request
 * undici refuses to send: that is this service's fault, not the upstream's.
 */
export function transportErrorOf(
  error: unknown,
  at: { readonly expired: boolean; readonly answered: boolean },
): TransportError {
  if (at.expired) return { error: new UpstreamTimeoutError(error), failure: 'deadline' };
  if (error instanceof UpstreamResponseTooLargeError) return { error, failure: 'too-large' };
  const code = codeOf(error);
  if (code === 'UND_ERR_INVALID_ARG') throw new UnexpectedError(error);
  if (code !== undefined && STALL_CODES.has(code)) {
    return { error: new UpstreamTimeoutError(error), failure: 'deadline' };
  }
  const failure: TransportFailure = at.answered
    ? 'during-body'
    : code !== undefined && NOT_SENT_CODES.has(code)
      ? 'not-sent'
      : 'before-answer';
  return { error: new UpstreamUnreachableError(error, failure !== 'not-sent'), failure };
}

function codeOf(error: unknown): string | undefined {
  let current: unknown = error;
  // undici wraps socket errors; the system code may sit on the cause.
  for (let depth = 0; depth < 3 && current instanceof Error; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = current.cause;
  }
  return undefined;
}

/** A Retry-After header (seconds or an HTTP date) as milliseconds from now; 0 when absent. */
export function retryAfterMs(value: string | undefined): number {
  if (!value) return 0;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(seconds * 1000, 0);
  const date = Date.parse(value);
  return Number.isNaN(date) ? 0 : Math.max(date - Date.now(), 0);
}

/** A failed call's `Outcome` in the UpstreamCalls metric. */
export function callOutcomeOf(error: unknown): 'timeout' | 'unreachable' | 'too-large' | 'failed' {
  if (error instanceof UpstreamTimeoutError) return 'timeout';
  if (error instanceof UpstreamUnreachableError) return 'unreachable';
  if (error instanceof UpstreamResponseTooLargeError) return 'too-large';
  return 'failed';
}
