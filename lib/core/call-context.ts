/**
 * What one invocation hands every call it makes: the time it has left, its own metrics and its
 * log. Made once per invocation (an HTTP request's state, a queue batch, a watch run) and passed
 * down to the domain clients and the upstream client, never kept in module scope: one process
 * may serve many invocations at once (Lambda Managed Instances), and what one of them counts or
 * logs must never land on another's line.
 */
import type { Context } from 'aws-lambda';
import type { Logger } from './log.ts';
import { Metrics } from './metrics.ts';

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
   * Told once a call is about to start, before its first attempt: throws to stop it unsent (the
   * request was answered already).
   */
  readonly beforeSend?: () => void;
  /**
   * Told as an attempt's request is written on its connection: from then on it may reach the
   * platform (the usage plans count it). Until then (a connection still being set up when the
   * deadline comes) nothing was sent. Throws to stop it unwritten (the request was answered
   * already).
   */
  readonly onSend?: () => void;
  /**
   * Where a success answer too large for the function's response goes, on a route that passes
   * its answer through (lib/http/hand-off.ts): stored as it arrives, and the caller sent there.
   * Absent, such an answer is refused (502/`520`).
   */
  readonly handOff?: AnswerHandOff | undefined;
}

/** An answer's status line and headers (lower-case names), as it arrives. */
export interface AnswerHead {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
}

/**
 * What a call hands a success answer that may be too large to return: it takes the answer's
 * body over from the exchange (lib/hand-off/taker.ts), and gives back either the body read
 * whole or the answer stored.
 */
export interface AnswerHandOff {
  take(answer: AnswerTaken): AnswerTaker;
}

/** A success answer as the exchange hands it over, with the means to end the exchange. */
export interface AnswerTaken extends AnswerHead {
  /** When the call ends, in milliseconds since the epoch. */
  readonly deadlineAt: number;
  /** The exchange's flow: paused while the taker is busy. */
  readonly flow: { pause(): void; resume(): void };
  /** The answer's body read whole (`stored` unset), or stored (`body` empty). */
  readonly done: (answer: { readonly body: Buffer; readonly stored?: StoredAnswer }) => void;
  /** Ends the exchange with this error. */
  readonly fail: (error: Error) => void;
}

/** What takes an answer's body over: its bytes as they arrive, its end, its abort. */
export interface AnswerTaker {
  data(chunk: Buffer): void;
  end(): void;
  /** The exchange failed: nothing of the answer is kept (settles once it is cleared away). */
  abort(): Promise<void> | undefined;
}

/** An answer handed off: stored whole, and fetched by the caller with a URL of its own. */
export interface StoredAnswer {
  /** The object's key in the stage's hand-off bucket. */
  readonly key: string;
  readonly bytes: number;
  /** The SHA-256 of the bytes, in base64. */
  readonly sha256: string;
  readonly contentType: string;
  /** A presigned GET URL of the object, valid until `expiresAt`. */
  readonly url: string;
  readonly expiresAt: Date;
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
