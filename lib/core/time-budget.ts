/**
 * The time an upstream call may take: what is left of the invocation. Kept apart from the
 * client so that a function that never calls upstream (health) does not bundle undici for it.
 */
import type { Context } from 'aws-lambda';

export interface TimeBudget {
  /** Milliseconds the function has left (Lambda's `getRemainingTimeInMillis`). */
  readonly remainingMs?: () => number;
}

/** The budget of an invocation: its Lambda context's remaining time, when it has one. */
export function timeBudgetOf(context: Pick<Context, 'getRemainingTimeInMillis'>): TimeBudget {
  return typeof context.getRemainingTimeInMillis === 'function'
    ? { remainingMs: () => context.getRemainingTimeInMillis() }
    : {};
}
