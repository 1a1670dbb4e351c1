/**
 * When an upstream call may be sent again: one table, as data, for every caller of the
 * upstream client (signed scan job calls, the catalogue, actions and triggers); and how long it
 * waits before it is (`backoffMs`), and what the retry costs of the container's budget.
 *
 * The rule behind every row: a request that is not idempotent is repeated only when the
 * upstream cannot have seen it (the connection was refused, or the platform's gateway itself
 * throttled it before calling the endpoint). Rows are read top to bottom; the first that
 * matches decides.
 */

import type { RetryCause } from './retry-budget.ts';

/** How a failed attempt ended without an answer. */
export type TransportFailure =
  /** Nothing was sent: connection refused, DNS failure, connect timeout. */
  | 'not-sent'
  /** The connection broke before the answer's headers: the request may have arrived. */
  | 'before-answer'
  /** The connection broke while the answer's body was read: the request did arrive. */
  | 'during-body'
  /** This call's deadline passed: there is no time left to try again. */
  | 'deadline'
  /** The answer is larger than the function could pass on: another attempt gets the same. */
  | 'too-large';

/**
 * Who produced an answer. The gateway says so in `x-<vendor>-apigw-response-origin`; without
 * that header only the body's shape is left, which an endpoint could imitate.
 */
export type AnswerOrigin =
  /** The origin header says APIGW. */
  | 'gateway'
  /** No origin header, but the body is exactly the gateway's envelope with a status it uses. */
  | 'gateway-shaped'
  /** The origin header says ENDPOINT, or the body is not the gateway's envelope. */
  | 'endpoint';

export type AttemptOutcome =
  | {
      readonly kind: 'answer';
      readonly status: number;
      /** The gateway envelope's errorCode, when the body is one. */
      readonly errorCode?: string | undefined;
      readonly origin: AnswerOrigin;
    }
  | { readonly kind: 'transport'; readonly failure: TransportFailure };

/** always: whatever the method; idempotent: only a request safe to send twice; never. */
type RetryVerdict = 'always' | 'idempotent' | 'never';

interface RetryRule {
  readonly transport?: TransportFailure;
  readonly status?: readonly number[];
  readonly errorCodes?: readonly string[];
  readonly origins?: readonly AnswerOrigin[];
  readonly verdict: RetryVerdict;
  readonly why: string;
}

/** Gateway throttling: refused by the gateway before the endpoint was called. */
const THROTTLED = ['410', '420'];

export const RETRY_RULES: readonly RetryRule[] = [
  { transport: 'not-sent', verdict: 'always', why: 'nothing reached the upstream' },
  { transport: 'before-answer', verdict: 'idempotent', why: 'the request may have arrived' },
  { transport: 'during-body', verdict: 'idempotent', why: 'the request arrived' },
  { transport: 'deadline', verdict: 'never', why: 'no time is left' },
  { transport: 'too-large', verdict: 'never', why: 'the same answer would come again' },
  {
    status: [429],
    errorCodes: THROTTLED,
    origins: ['gateway'],
    verdict: 'always',
    why: 'the gateway throttled the call before calling the endpoint',
  },
  {
    status: [429],
    errorCodes: THROTTLED,
    origins: ['gateway-shaped'],
    verdict: 'idempotent',
    why: 'looks like gateway throttling, but an endpoint could answer the same body',
  },
  { status: [429], verdict: 'never', why: 'quota exhausted, or the endpoint itself said so' },
  { status: [503, 504], verdict: 'idempotent', why: 'the endpoint may have run the request' },
  { verdict: 'never', why: 'an answer that retrying cannot change' },
];

function matches(rule: RetryRule, outcome: AttemptOutcome): boolean {
  if (outcome.kind === 'transport') {
    return rule.transport === outcome.failure;
  }
  if (rule.transport !== undefined) return false;
  if (rule.status && !rule.status.includes(outcome.status)) return false;
  if (rule.errorCodes && !rule.errorCodes.includes(outcome.errorCode ?? '')) return false;
  if (rule.origins && !rule.origins.includes(outcome.origin)) return false;
  return true;
}

/** The rule that decides an outcome (the table ends with a catch-all). */
export function ruleFor(outcome: AttemptOutcome): RetryRule {
  const rule = RETRY_RULES.find((candidate) => matches(candidate, outcome));
  // The last row matches every answer and each transport failure has a row.
  return rule ?? (RETRY_RULES[RETRY_RULES.length - 1] as RetryRule);
}

/** Whether the outcome of an attempt may be followed by another attempt. */
export function mayRetry(outcome: AttemptOutcome, idempotent: boolean): boolean {
  const verdict = ruleFor(outcome).verdict;
  return verdict === 'always' || (verdict === 'idempotent' && idempotent);
}

/**
 * The gateway throttled the attempt (429 `410`/`420`, from the gateway or shaped like it): the
 * sign for a bulk walk to send fewer calls at once.
 */
export function isThrottled(outcome: AttemptOutcome): boolean {
  return (
    outcome.kind === 'answer' &&
    outcome.status === 429 &&
    THROTTLED.includes(outcome.errorCode ?? '') &&
    outcome.origin !== 'endpoint'
  );
}

/** How many attempts a call may make, and how long it waits between them (full jitter). */
export interface Backoff {
  readonly maxAttempts: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
}

export const DEFAULT_BACKOFF: Backoff = { maxAttempts: 4, baseDelayMs: 100, maxDelayMs: 2000 };

/**
 * The wait after attempt `attempt`: full jitter (`random`, 0 to 1) under a ceiling that doubles
 * with each attempt, raised to the upstream's Retry-After when it sends one.
 */
export function backoffMs(
  settings: Backoff,
  attempt: number,
  random: number,
  retryAfterMs: number,
): number {
  const ceiling = Math.min(settings.maxDelayMs, settings.baseDelayMs * 2 ** (attempt - 1));
  return Math.max(random * ceiling, retryAfterMs);
}

/** A retry after a timeout costs more (the platform was slow, not only unlucky). */
export function retryCauseOf(outcome: AttemptOutcome): RetryCause {
  return outcome.kind === 'transport' && outcome.failure === 'deadline' ? 'timeout' : 'error';
}
