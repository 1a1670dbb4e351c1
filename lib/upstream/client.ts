/**
 * The upstream client: sends a request through the container's dispatcher (dispatch.ts) under
 * one deadline per call that covers every attempt whole (connect, headers, body, backoff),
 * retries as one table decides (retry-policy.ts), and counts each call's outcome in metrics.
 *
 * Retries are decided here rather than by undici's retry interceptor because the decision needs
 * who answered and the gateway's errorCode from the body (429 `410`/`420` from the gateway are
 * retried; the same from an action is its own answer), and because every wait must fit in the
 * caller's deadline.
 */

import type { CallContext, StoredAnswer } from '../core/call-context.ts';
import { UpstreamTimeoutError } from '../core/errors.ts';
import { LAMBDA_PAYLOAD_LIMIT_BYTES } from '../core/lambda-limits.ts';
import { perRuntime } from '../core/per-runtime.ts';
import { identifyAnswer } from './answer-origin.ts';
import { Deadline, dispatchOnce } from './dispatch.ts';
import { MAX_DECODED_ERROR_BYTES } from './error-decoding.ts';
import { RetryBudget } from './retry-budget.ts';
import {
  type AttemptOutcome,
  type Backoff,
  backoffMs,
  DEFAULT_BACKOFF,
  mayRetry,
  retryCauseOf,
  type TransportFailure,
} from './retry-policy.ts';
import { callOutcomeOf, retryAfterMs, transportErrorOf } from './transport-errors.ts';
import type { Dispatcher } from './undici.ts';
import type { UpstreamTarget } from './urls.ts';

interface UpstreamRequest {
  readonly method: string;
  /** A URL, or what `upstreamUrl` builds. */
  readonly url: UpstreamTarget;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string | Uint8Array | undefined;
  /**
   * Safe to send twice. Defaults to true for GET, HEAD, OPTIONS, PUT and DELETE; a POST that
   * only reads (a search) may say so. A non-idempotent call is repeated only when it cannot
   * have reached the endpoint (retry-policy.ts).
   */
  readonly idempotent?: boolean;
  /**
   * The caller hands error answers back unchanged (an action's own answer), so they are read
   * whole, up to the response limit. Otherwise an error answer is only decoded, and at most
   * MAX_ERROR_BODY_BYTES of it is read.
   */
  readonly passesErrors?: boolean;
  /** The platform service called, for metrics (`scan-jobs`, `nmt`, `actions`, ...). */
  readonly service?: string;
  /**
   * This call's deadline, instead of the client's (UPSTREAM_TIMEOUT_MS): the queue consumer
   * waits for an action as long as its own timeout allows. Still never past the remaining time.
   */
  readonly timeoutMs?: number;
  /** Told how each attempt ended: a bulk walk slows down when the gateway throttles. */
  readonly onAttempt?: AttemptObserver;
}

/** How one attempt ended, and how long the upstream asked to wait before the next (Retry-After). */
export type AttemptObserver = (outcome: AttemptOutcome, retryAfterMs: number) => void;

export interface UpstreamAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** The body; empty when the answer was handed off (`stored`). */
  readonly body: Buffer;
  /**
   * The answer was too large to return, and was handed off: stored whole as it arrived
   * (the call context's hand-off), and the caller is sent there.
   */
  readonly stored?: StoredAnswer | undefined;
  /** How many attempts it took (1 = no retry). */
  readonly attempts: number;
}

interface UpstreamClientOptions {
  readonly dispatcher: Dispatcher;
  readonly timeoutMs: number;
  /** The vendor word of the gateway's headers (`x-<vendor>-apigw-response-origin`). */
  readonly vendor?: string;
  readonly backoff?: Partial<Backoff>;
  /** The container's retry budget (retry-budget.ts); every retry draws on it. */
  readonly retryBudget?: RetryBudget;
  /** Time kept back from the function's remaining time (DEFAULT_RESERVE_MS). */
  readonly reserveMs?: number;
  /** Largest body read from an answer that is passed on (MAX_UPSTREAM_BODY_BYTES). */
  readonly maxBodyBytes?: number;
  readonly now?: () => number;
  readonly random?: () => number;
}

/**
 * A Lambda function returns at most 6 MB (its serialized synchronous response), so an upstream
 * body larger than this can never be passed on: reading stops here.
 */
export const MAX_UPSTREAM_BODY_BYTES = LAMBDA_PAYLOAD_LIMIT_BYTES;
/** What an error answer that is only decoded needs: the codec reads no further. */
export const MAX_ERROR_BODY_BYTES = MAX_DECODED_ERROR_BYTES;
/**
 * Kept back from the function's remaining time: the deadline's timer may fire late on a busy
 * event loop (tens of ms), then the error envelope is built and logged, and the runtime has
 * to ship the answer. 250 ms leaves room for all of it on a 10 s function.
 */
const DEFAULT_RESERVE_MS = 250;

const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

type Attempt =
  | { readonly response: UpstreamAnswer; readonly outcome: AttemptOutcome }
  | { readonly error: Error; readonly outcome: AttemptOutcome };

export class UpstreamClient {
  private readonly backoffSettings: Backoff;
  private readonly now: () => number;
  private readonly random: () => number;
  private readonly vendor: string;
  private readonly maxBodyBytes: number;
  private readonly retryBudget: RetryBudget;

  private readonly options: UpstreamClientOptions;

  constructor(options: UpstreamClientOptions) {
    this.options = options;
    this.backoffSettings = { ...DEFAULT_BACKOFF, ...options.backoff };
    this.now = options.now ?? (() => Date.now());
    this.random = options.random ?? Math.random;
    this.vendor = options.vendor ?? 'platform';
    this.maxBodyBytes = options.maxBodyBytes ?? MAX_UPSTREAM_BODY_BYTES;
    this.retryBudget = options.retryBudget ?? new RetryBudget();
  }

  /**
   * Sends the request, retrying as the table says, within the time the call context has left;
   * counts the call's outcome on the context's metrics (lib/core/metrics.ts).
   */
  async send(request: UpstreamRequest, call: CallContext): Promise<UpstreamAnswer> {
    const service = { Service: request.service ?? 'unknown' };
    const metrics = call.metrics;
    try {
      const response = await this.exchange(request, call);
      const status = response.status;
      metrics.count('UpstreamCalls', {
        ...service,
        Outcome: status < 400 ? 'success' : status < 500 ? 'client-error' : 'server-error',
      });
      if (response.attempts > 1) metrics.count('UpstreamRetries', service, response.attempts - 1);
      return response;
    } catch (error) {
      const outcome = callOutcomeOf(error);
      metrics.count('UpstreamCalls', { ...service, Outcome: outcome });
      if (outcome === 'timeout') metrics.count('UpstreamTimeouts', service);
      throw error;
    }
  }

  private async exchange(request: UpstreamRequest, call: CallContext): Promise<UpstreamAnswer> {
    const allowedMs = this.allowedMs(call, request.timeoutMs);
    if (allowedMs <= 0) throw new UpstreamTimeoutError();
    call.beforeSend?.();
    const deadlineAt = this.now() + allowedMs;
    const idempotent = request.idempotent ?? IDEMPOTENT_METHODS.has(request.method.toUpperCase());
    // One native timer per call, whatever the number of attempts: undici's timers above 1 s tick
    // every ~0.5 s, and its body timeout restarts at every chunk.
    const deadline = new Deadline(allowedMs);
    // What the retries of this call took from the container's retry budget.
    let retriesTook = 0;
    try {
      for (let attempt = 1; ; attempt++) {
        const result = await this.attempt(request, deadline, attempt, allowedMs, call);
        this.reportAttempt(request.onAttempt, result);
        const delay =
          attempt < this.backoffSettings.maxAttempts && mayRetry(result.outcome, idempotent)
            ? backoffMs(this.backoffSettings, attempt, this.random(), waitAskedIn(result))
            : undefined;
        const cost =
          delay === undefined || this.now() + delay >= deadlineAt
            ? undefined
            : this.retryBudget.acquire(retryCauseOf(result.outcome));
        if (delay !== undefined && cost === undefined && this.now() + delay < deadlineAt) {
          call.metrics.count('UpstreamRetriesRefused', { Service: request.service ?? 'unknown' });
        }
        if (cost === undefined) {
          if ('response' in result) {
            if (result.response.status < 400) this.retryBudget.succeeded(retriesTook);
            return result.response;
          }
          throw result.error;
        }
        retriesTook += cost;
        await deadline.sleep(delay ?? 0);
      }
    } finally {
      deadline.clear();
    }
  }

  /** An observer's mistake never changes the call. */
  private reportAttempt(observer: AttemptObserver | undefined, result: Attempt): void {
    if (!observer) return;
    try {
      observer(result.outcome, waitAskedIn(result));
    } catch {
      // Ignored on purpose: observing is advice, the call's own outcome stands.
    }
  }

  private allowedMs(call: CallContext, callTimeoutMs = this.options.timeoutMs): number {
    const remaining = call.remainingMs?.();
    const reserve = this.options.reserveMs ?? DEFAULT_RESERVE_MS;
    return remaining === undefined ? callTimeoutMs : Math.min(callTimeoutMs, remaining - reserve);
  }

  private async attempt(
    request: UpstreamRequest,
    deadline: Deadline,
    attempt: number,
    backstopMs: number,
    call: CallContext,
  ): Promise<Attempt> {
    if (deadline.expired) return failed(new UpstreamTimeoutError(), 'deadline');
    let answered = false;
    try {
      const answer = await dispatchOnce(
        this.options.dispatcher,
        {
          origin: request.url.origin,
          path: request.url.pathname + request.url.search,
          method: request.method,
          headers: request.headers,
          body: request.body,
          // Backstops only: the deadline ends the call first.
          headersTimeout: backstopMs + 1000,
          bodyTimeout: backstopMs + 1000,
        },
        {
          maxBodyBytes: this.maxBodyBytes,
          // An error answer that is only decoded is cut; one passed on is held to the limit.
          maxErrorBodyBytes: request.passesErrors ? undefined : MAX_ERROR_BODY_BYTES,
          deadline,
          onAnswer: () => {
            answered = true;
          },
          onSend: call.onSend,
          handOff: call.handOff,
        },
      );
      const { status, headers, body, stored } = answer;
      const response: UpstreamAnswer = stored
        ? { status, headers, body, stored, attempts: attempt }
        : { status, headers, body, attempts: attempt };
      if (status < 400)
        return { response, outcome: { kind: 'answer', status, origin: 'endpoint' } };
      const identity = identifyAnswer(status, headers, body, this.vendor);
      return { response, outcome: { kind: 'answer', status, ...identity } };
    } catch (error) {
      const { error: raised, failure } = transportErrorOf(error, {
        expired: deadline.expired,
        answered,
      });
      return failed(raised, failure);
    }
  }
}

/** How long the upstream asked to wait before the next attempt (Retry-After), in ms. */
function waitAskedIn(result: Attempt): number {
  return 'response' in result ? retryAfterMs(result.response.headers['retry-after']) : 0;
}

function failed(error: Error, failure: TransportFailure): Attempt {
  return { error, outcome: { kind: 'transport', failure } };
}

/** What the container's upstream client is built from: the runtime's parts it uses. */
interface UpstreamParts {
  readonly dispatcher: Dispatcher;
  readonly retryBudget: RetryBudget;
  readonly config: { readonly upstreamTimeoutMs: number; readonly gatewayVendor: string };
  readonly now: () => number;
}

/**
 * The container's one upstream client, built on first use from its runtime, so that a function
 * that never calls the platform (the webhook receiver, the OpenAPI document) carries none of
 * it: not the retry loop, not the error decoding.
 */
export const upstreamClientOf = perRuntime(
  (parts: UpstreamParts) =>
    new UpstreamClient({
      dispatcher: parts.dispatcher,
      timeoutMs: parts.config.upstreamTimeoutMs,
      retryBudget: parts.retryBudget,
      vendor: parts.config.gatewayVendor,
      now: parts.now,
    }),
);
