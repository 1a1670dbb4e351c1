/**
 * Bulk calls several at a time: a pool of at most `limit.current` calls in flight, whose limit
 * falls when the platform throttles and climbs back as calls succeed (additive increase,
 * multiplicative decrease, as TCP does), and which stops starting calls when the time left
 * cannot cover another one.
 *
 * Written here rather than taken from p-limit (about 1 KB with its queue): the walks need three
 * things p-limit does not do, a limit that moves with the platform's answers, a pause of every
 * new start after a throttle, and the items never started handed back (the caller's
 * `remaining`), so the library would have been wrapped in as much code as this.
 */

export interface AdaptiveLimitOptions {
  readonly now?: () => number;
  /** How long new starts wait after a throttle when the platform names no time. */
  readonly pauseMs?: number;
}

/** Default pause after a throttle: the upstream client's base backoff times two. */
const DEFAULT_PAUSE_MS = 200;
/**
 * A pause is waited out in slices of this much, asking `mayStart` between them: a long
 * Retry-After must not hold the walk past the time it has to answer.
 */
const PAUSE_SLICE_MS = 100;

/** How many calls may be in flight: halved on a throttle, one more after each full round. */
export class AdaptiveLimit {
  #current: number;
  #lowest: number;
  #throttles = 0;
  #successes = 0;
  #resumeAt = 0;
  readonly #now: () => number;
  readonly #pauseMs: number;

  readonly max: number;

  constructor(max: number, options: AdaptiveLimitOptions = {}) {
    this.max = max;
    if (!Number.isInteger(max) || max < 1)
      throw new Error(`A pool limit must be 1 or more: ${max}`);
    this.#current = max;
    this.#lowest = max;
    this.#now = options.now ?? (() => Date.now());
    this.#pauseMs = options.pauseMs ?? DEFAULT_PAUSE_MS;
  }

  get current(): number {
    return this.#current;
  }

  /** For the walk's log line: the lowest limit it came down to, and the throttles seen. */
  get lowest(): number {
    return this.#lowest;
  }

  get throttles(): number {
    return this.#throttles;
  }

  /**
   * The platform throttled a call: half as many in flight, and no new start for a pause (its
   * Retry-After when it named one). Throttles inside a pause are the same burst, seen by the
   * calls already in flight: they do not halve the limit again.
   */
  throttled(retryAfterMs = 0): void {
    const now = this.#now();
    this.#throttles += 1;
    if (now >= this.#resumeAt) this.#current = Math.max(1, Math.floor(this.#current / 2));
    this.#lowest = Math.min(this.#lowest, this.#current);
    this.#successes = 0;
    this.#resumeAt = Math.max(this.#resumeAt, now + Math.max(retryAfterMs, this.#pauseMs));
  }

  /** A call went through: after as many successes as the limit, the limit grows by one. */
  succeeded(): void {
    if (this.#current >= this.max) return;
    if (++this.#successes >= this.#current) {
      this.#current += 1;
      this.#successes = 0;
    }
  }

  /** Milliseconds before a new call may start (0: now). */
  waitMs(): number {
    return Math.max(this.#resumeAt - this.#now(), 0);
  }

  /**
   * Waits out the pause, in slices, while `mayStart` allows; resolves whether a call may start
   * (false: the time ran out first).
   */
  async paused(mayStart: () => boolean = () => true): Promise<boolean> {
    for (;;) {
      if (!mayStart()) return false;
      const ms = this.waitMs();
      if (ms === 0) return true;
      await wait(Math.min(ms, PAUSE_SLICE_MS)).promise;
    }
  }
}

export interface BoundedRunOptions {
  readonly limit: AdaptiveLimit;
  /** Asked before each start: false once the time left cannot cover another call. */
  readonly mayStart?: () => boolean;
}

/**
 * Runs `work` over the items in order, at most `limit.current` at a time. `work` may hand an
 * item back with `again` (a call the platform refused before running it), to be run after the
 * others. Starting stops when `mayStart` says so; the calls in flight are awaited, never
 * abandoned; a pause after a throttle is waited out in slices, asking `mayStart` between them.
 * Returns the items never started, in order. If `work` throws, nothing more starts and the
 * first error is thrown once the calls in flight have ended.
 */
export async function runBounded<T>(
  items: Iterable<T>,
  work: (item: T, again: (item: T) => void) => Promise<void>,
  options: BoundedRunOptions,
): Promise<T[]> {
  const { limit, mayStart = () => true } = options;
  const queue = [...items];
  let head = 0;
  let stopped = false;
  let failure: { error: unknown } | undefined;
  const inFlight = new Set<Promise<void>>();
  const again = (item: T) => {
    queue.push(item);
  };

  const start = (item: T) => {
    const task: Promise<void> = work(item, again)
      .catch((error: unknown) => {
        failure ??= { error };
        stopped = true;
      })
      .finally(() => inFlight.delete(task));
    inFlight.add(task);
  };

  for (;;) {
    while (!stopped && head < queue.length && inFlight.size < limit.current) {
      if (!mayStart()) {
        stopped = true;
        break;
      }
      if (limit.waitMs() > 0) break;
      start(queue[head++] as T);
    }
    const waiting = !stopped && head < queue.length;
    if (inFlight.size === 0 && !waiting) break;
    const pause = waiting ? Math.min(limit.waitMs(), PAUSE_SLICE_MS) : 0;
    if (inFlight.size === 0) {
      await wait(pause).promise;
      continue;
    }
    const timer = pause > 0 ? wait(pause) : undefined;
    await Promise.race(timer ? [...inFlight, timer.promise] : [...inFlight]);
    timer?.cancel();
  }
  if (failure) throw failure.error;
  return queue.slice(head);
}

function wait(ms: number): { promise: Promise<void>; cancel: () => void } {
  let timer: NodeJS.Timeout | undefined;
  const promise = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  return { promise, cancel: () => clearTimeout(timer) };
}
