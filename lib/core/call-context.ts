/**
 * What one invocation hands every call it makes: the time it has left, its own metrics and its
 * log. Made once per invocation (an HTTP request's state, a queue batch, a watch run) and passed
 * down to the domain clients and the upstream client, never kept in module scope: one process
 * may serve many invocations at once (Lambda Managed Instances), and what one of them counts or
 * logs must never land on another's line.
 */
import type { Context } from 'aws-lambda';
import type { Logger } from './log.js';
import { Metrics } from './metrics.js';

export interface CallContext {
  /**
   * Milliseconds the function has left (Lambda's `getRemainingTimeInMillis`); absent, no end
   * but each upstream call's own deadline.
   */
  readonly remainingMs?: () => number;
  /** The invocation's counters: what its calls count rides on its own log line. */
  readonly metrics: Metrics;
  /** The invocation's logger, with its request id (and caller, for an HTTP request). */
  readonly log: Logger;
  /**
   * Told once a call is about to go out, before its first attempt is sent: from then on it may
   * reach the platform (the usage plans count it). Throws to stop the call unsent (the request
   * was answered already).
   */
  readonly beforeSend?: () => void;
}

/** The call context of an invocation: its Lambda context's remaining time, when it has one. */
export function callContextOf(
  lambda: Pick<Context, 'getRemainingTimeInMillis'>,
  log: Logger,
  metrics: Metrics = new Metrics(),
): CallContext {
  return typeof lambda.getRemainingTimeInMillis === 'function'
    ? { remainingMs: () => lambda.getRemainingTimeInMillis(), metrics, log }
    : { metrics, log };
}

/** The same context with `reserveMs` less time: a walk keeps back what it needs to answer. */
export function withReserve(call: CallContext, reserveMs: number): CallContext {
  const remaining = call.remainingMs;
  return remaining ? { ...call, remainingMs: () => remaining() - reserveMs } : call;
}
