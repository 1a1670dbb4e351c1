/**
 * The time plan of a bulk walk: many upstream calls in one invocation, each started only when
 * the time left covers it.
 */
import { type CallContext, withReserve } from './call-context.ts';

interface WalkPlanOptions {
  /** Kept back from the invocation's remaining time, to build and send the answer. */
  readonly reserveMs: number;
  /**
   * What the upstream client keeps back from a call's budget (its own reserve): a call needs
   * this much on top of its own duration.
   */
  readonly callReserveMs?: number;
  /** The least a call is expected to take, before any has been timed. */
  readonly minCallMs?: number;
  readonly now?: () => number;
}

/** Calls timed to judge the next one: the slowest of the last few. */
const RECENT_CALLS = 16;

/**
 * The time plan of a bulk walk, many upstream calls in one invocation. Every call keeps its own
 * deadline (the upstream client's, inside `call`); the walk as a whole uses the invocation's
 * time less a reserve to answer; and no new call starts unless the time left covers it, taken
 * as twice the slowest of the recent calls. So the walk stops sending in time to answer with
 * what it did, rather than running into the function's timeout with calls half done.
 */
export class WalkPlan {
  /** The context of each call of the walk: the invocation's, with its time less the reserve. */
  readonly call: CallContext;
  readonly #now: () => number;
  readonly #callReserveMs: number;
  readonly #minCallMs: number;
  readonly #recent: number[] = [];

  constructor(invocation: CallContext, options: WalkPlanOptions) {
    this.#now = options.now ?? (() => Date.now());
    this.#callReserveMs = options.callReserveMs ?? 250;
    this.#minCallMs = options.minCallMs ?? 50;
    this.call = withReserve(invocation, options.reserveMs);
  }

  /** Milliseconds the walk's calls have left; undefined when the invocation has no deadline. */
  remainingMs(): number | undefined {
    return this.call.remainingMs?.();
  }

  /** What one more call is expected to need: twice the slowest recent call, at least minCallMs. */
  expectedCallMs(): number {
    return 2 * Math.max(this.#minCallMs, ...this.#recent);
  }

  /** Whether the time left covers one more call, with the client's own reserve. */
  mayStart(): boolean {
    const remaining = this.remainingMs();
    return remaining === undefined || remaining - this.#callReserveMs >= this.expectedCallMs();
  }

  /**
   * Whether the walk may wait this long (for a usage plan's token) and still have the time of
   * one more call after it.
   */
  canWait(ms: number): boolean {
    const remaining = this.remainingMs();
    return remaining === undefined || remaining - this.#callReserveMs - ms >= this.expectedCallMs();
  }

  /** Runs one call and adds its duration to what judges the next ones. */
  async time<T>(call: () => Promise<T>): Promise<T> {
    const started = this.#now();
    try {
      return await call();
    } finally {
      this.#recent.push(this.#now() - started);
      if (this.#recent.length > RECENT_CALLS) this.#recent.shift();
    }
  }
}
