/**
 * One retry budget per container, shaped like the AWS SDK's retry quota (its "standard" retry
 * mode): a bucket of 500 tokens; a retry takes 5 (10 after a timeout); a call that succeeds
 * gives back what its retry took, or 1 when it needed none, up to the bucket's size. When the
 * bucket cannot pay for a retry, the call is not retried: during an outage the platform sees
 * the callers' own rate plus what the bucket had left, and no more.
 *
 * https://docs.aws.amazon.com/sdkref/latest/guide/feature-retry-behavior.html
 */

/** What one retry costs, by why the attempt before it failed. */
export type RetryCause = 'error' | 'timeout';

export interface RetryBudgetOptions {
  readonly capacity?: number;
  readonly retryCost?: number;
  readonly timeoutCost?: number;
  /** Given back by a call that succeeded at the first attempt. */
  readonly successRefill?: number;
}

const DEFAULTS = { capacity: 500, retryCost: 5, timeoutCost: 10, successRefill: 1 };

export class RetryBudget {
  private tokens: number;
  private readonly settings: Required<RetryBudgetOptions>;

  constructor(options: RetryBudgetOptions = {}) {
    this.settings = { ...DEFAULTS, ...options };
    this.tokens = this.settings.capacity;
  }

  /** Tokens left, for tests and log lines. */
  get available(): number {
    return this.tokens;
  }

  /**
   * Takes the cost of one retry; returns what was taken, or undefined (and takes nothing) when
   * the bucket cannot pay for it: the call must not be retried.
   */
  acquire(cause: RetryCause): number | undefined {
    const cost = cause === 'timeout' ? this.settings.timeoutCost : this.settings.retryCost;
    if (this.tokens < cost) return undefined;
    this.tokens -= cost;
    return cost;
  }

  /** A call succeeded: gives back what its retries took, or the refill for a first success. */
  succeeded(retriesTook: number): void {
    const back = retriesTook > 0 ? retriesTook : this.settings.successRefill;
    this.tokens = Math.min(this.settings.capacity, this.tokens + back);
  }
}
