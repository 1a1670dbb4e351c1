/**
 * What one run of a queued invocation came to, read from the action's answer or the error the
 * call threw. What the consumer then does with each outcome is decision.ts's.
 *
 * | outcome      | when                                                                  |
 * | ------------ | --------------------------------------------------------------------- |
 * | succeeded    | the action answered below 400 (a 202: it outlived the blocking wait and runs on) |
 * | rejected     | the action's own 4xx, other than 408, 425 and 429: final               |
 * | busy         | the action's own 408, 425 or 429                                       |
 * | not-sent     | nothing reached the action: refused connection, gateway 401/403/429/503 |
 * | unknown      | timed out, reset after sending, gateway 500/502/504                    |
 * | failed       | the action's own 5xx: it ran and failed                                |
 * | refused      | the gateway refused the call for good (400, 404, 413, ...); or it was   |
 * |              | never sent: its params in the body store do not match their SHA-256    |
 */
import {
  CredentialsRefusedError,
  ServiceError,
  UpstreamError,
  UpstreamTimeoutError,
  UpstreamUnreachableError,
} from '../core/errors.ts';
import type { UpstreamAnswer } from '../upstream/client.ts';

export type RunOutcome =
  | { readonly kind: 'succeeded' | 'rejected'; readonly status: number }
  | { readonly kind: 'busy'; readonly status: number; readonly retryAfterSeconds: number }
  | { readonly kind: 'not-sent' | 'unknown' | 'refused'; readonly reason: string }
  | { readonly kind: 'failed'; readonly status: number; readonly reason: string };

/** The action's own answers that mean "not now": it did not run. */
const BUSY_STATUSES = new Set([408, 425, 429]);
/** Gateway refusals that come before the action is called, and may pass later. */
const NOT_SENT_GATEWAY_STATUSES = new Set([401, 403, 429, 503]);
/** When the action gives no Retry-After. */
const DEFAULT_BUSY_SECONDS = 30;

/** The outcome of an answer the execution client returned (the action's own). */
export function outcomeOfAnswer(answer: UpstreamAnswer): RunOutcome {
  const status = answer.status;
  if (status < 400) return { kind: 'succeeded', status };
  if (BUSY_STATUSES.has(status)) {
    return {
      kind: 'busy',
      status,
      retryAfterSeconds: retryAfterSeconds(answer.headers['retry-after']) ?? DEFAULT_BUSY_SECONDS,
    };
  }
  if (status < 500) return { kind: 'rejected', status };
  return { kind: 'failed', status, reason: `the action answered ${status}` };
}

/** The outcome of an error the execution client threw. */
export function outcomeOfError(thrown: unknown): RunOutcome {
  if (thrown instanceof UpstreamTimeoutError) {
    return { kind: 'unknown', reason: 'no answer before the deadline' };
  }
  if (thrown instanceof UpstreamUnreachableError) {
    return thrown.maybeSent
      ? { kind: 'unknown', reason: 'the connection broke after the request was sent' }
      : { kind: 'not-sent', reason: 'the action could not be reached' };
  }
  // The gateway refused the action's API key (the operator's to correct): it did not run.
  if (thrown instanceof CredentialsRefusedError) {
    const { status, code } = thrown.refusal;
    return {
      kind: 'not-sent',
      reason: `the gateway refused the action's apiKey (${status}/${code})`,
    };
  }
  if (thrown instanceof UpstreamError) {
    const reason = `the gateway answered ${thrown.status} (${thrown.code})`;
    if (NOT_SENT_GATEWAY_STATUSES.has(thrown.status)) return { kind: 'not-sent', reason };
    if (thrown.status >= 500) return { kind: 'unknown', reason };
    return { kind: 'refused', reason };
  }
  // The platform credentials are not available yet: nothing was sent.
  if (thrown instanceof ServiceError && thrown.status === 503) {
    return { kind: 'not-sent', reason: `${thrown.code} ${thrown.message}` };
  }
  const name = thrown instanceof Error ? thrown.name : 'error';
  return { kind: 'unknown', reason: `the call failed unexpectedly (${name})` };
}

/**
 * Retry-After as seconds (a number, or an HTTP date), when it is one. A negative number is
 * neither (Date.parse would read `-1` as a year).
 */
function retryAfterSeconds(value: string | undefined): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds : undefined;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max((date - Date.now()) / 1000, 0);
}
