/**
 * The gateway's throttle: a token bucket over every API request (control requests excluded).
 * A request that finds the bucket empty is refused by the gateway itself, before any endpoint
 * runs: 429 with errorCode 410 ("Throttle Limited"), origin APIGW. The platform sets such limits
 * per API stage; the spec gives no figure, so the emulator has none unless asked
 * (`rateLimitPerSecond` on startEmulator, EMULATOR_RATE_LIMIT for `npm run emulator`).
 */
export class RateLimiter {
  #tokens: number;
  #refilledAt: number;

  private readonly perSecond: number;
  private readonly now: () => number;
  private readonly burst: number;

  /**
   * @param perSecond sustained requests per second
   * @param burst requests accepted at once from a full bucket (default: one second's worth)
   */
  constructor(perSecond: number, now: () => number, burst = perSecond) {
    this.perSecond = perSecond;
    this.now = now;
    this.burst = burst;
    if (!(perSecond > 0)) throw new Error(`rateLimitPerSecond must be positive, got ${perSecond}`);
    this.#tokens = burst;
    this.#refilledAt = now();
  }

  /** Takes a token for one request; false when the bucket is empty (the request is throttled). */
  take(): boolean {
    const now = this.now();
    const elapsed = Math.max(now - this.#refilledAt, 0);
    this.#tokens = Math.min(this.burst, this.#tokens + (elapsed * this.perSecond) / 1000);
    this.#refilledAt = now;
    if (this.#tokens < 1) return false;
    this.#tokens -= 1;
    return true;
  }

  /** A full bucket again (the emulator's reset). */
  refill(): void {
    this.#tokens = this.burst;
    this.#refilledAt = this.now();
  }
}
