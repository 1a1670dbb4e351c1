/**
 * A request the usage plans refuse (lib/usage/): over a plan's rate or one of its quotas, a
 * second long-running request of one caller, or the counters out of reach while the stage holds
 * its plans closed. Each says when to come back (Retry-After).
 */
import { retryAfterOf, ServiceError } from './service-error.ts';

/** Which plan refused a request: the caller's own, or the account's (every caller's together). */
export type PlanHolder = 'caller' | 'account';

/**
 * Over a plan's rate (its token bucket, `rateRps` with `burst`): 429 / `420`, the platform's
 * "Rate Limited". `headers` carries the RateLimit fields of the plans that apply; Retry-After is
 * the time until the bucket holds one request again.
 */
export class RateLimitedError extends ServiceError {
  override name = 'RateLimitedError';
  readonly plan: PlanHolder;

  constructor(
    plan: PlanHolder,
    retryAfterSeconds: number,
    headers: Readonly<Record<string, string>> = {},
  ) {
    super({
      status: 429,
      code: '420',
      message: 'Rate Limited',
      details: `Over the ${plan} plan's rateRps; retry after the Retry-After seconds.`,
      reason: `rate-limited ${plan} rateRps`,
      headers: { ...headers, 'Retry-After': retryAfterOf(retryAfterSeconds) },
    });
    this.plan = plan;
  }
}

/**
 * Over one of a plan's quotas (`dayQuotaRequest`, `monthQuotaCharacters.translate`, ...): 429 /
 * `400`, the platform's "Quota Exceeded". Retry-After runs until the window resets (the next UTC
 * day or month). `details` names the plan and the limit; never another caller.
 */
export class QuotaExceededError extends ServiceError {
  override name = 'QuotaExceededError';
  readonly plan: PlanHolder;
  readonly limit: string;

  constructor(
    plan: PlanHolder,
    limit: string,
    retryAfterSeconds: number,
    headers: Readonly<Record<string, string>> = {},
  ) {
    super({
      status: 429,
      code: '400',
      message: 'Quota Exceeded',
      details: `Over the ${plan} plan's ${limit}; it resets with the window (Retry-After).`,
      reason: `quota-exceeded ${plan} ${limit}`,
      headers: { ...headers, 'Retry-After': retryAfterOf(retryAfterSeconds) },
    });
    this.plan = plan;
    this.limit = limit;
  }
}

/**
 * A second long-running request of one caller while its first still runs (a second
 * `cancel-reserved` at once): 429 / `410`, the platform's "Throttle Limited".
 */
export class ThrottleLimitedError extends ServiceError {
  override name = 'ThrottleLimitedError';
  constructor(what: string, retryAfterSeconds: number) {
    super({
      status: 429,
      code: '410',
      message: 'Throttle Limited',
      details: `A ${what} of this caller is running; one at a time.`,
      reason: `throttle-limited ${what}`,
      headers: { 'Retry-After': retryAfterOf(retryAfterSeconds) },
    });
  }
}

/**
 * The usage counters could not be read or written, and the stage holds plans closed
 * (`USAGE_STORE_FAILURE=closed`): 503 / `500`, nothing sent upstream.
 */
export class UsageStoreUnavailableError extends ServiceError {
  override name = 'UsageStoreUnavailableError';
  constructor(cause?: unknown) {
    super({
      status: 503,
      code: '500',
      message: 'Service Unavailable',
      details: 'The usage counters could not be reached; try again later.',
      reason: 'usage-store-unavailable',
      headers: { 'Retry-After': '1' },
      cause,
    });
  }
}
