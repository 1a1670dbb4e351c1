/**
 * The upstream HTTP client: undici over one keep-alive dispatcher per container, a deadline
 * per call (retries included), failures mapped to the error taxonomy, and safe retries with
 * full-jitter backoff inside the deadline.
 *
 * Retries are decided here rather than by undici's retry interceptor because the decision
 * needs the gateway's errorCode from the body (429 `410`/`420` are retried, 429 `400`, quota
 * exhausted, is not) and because every wait must fit in the caller's deadline.
 */

import { fieldsOf } from '../errorCodec.js';
import { UpstreamTimeoutError, UpstreamUnreachableError } from '../errors.js';
import { Agent, type Dispatcher, request as dispatch } from './undici.js';

export interface UpstreamRequest {
  readonly method: string;
  readonly url: URL;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string | Uint8Array | undefined;
  /**
   * Safe to send twice. Defaults to true for GET, HEAD, OPTIONS, PUT and DELETE; a POST that
   * only reads (a search) may say so. A non-idempotent call is repeated only when it cannot
   * have reached the upstream (connection refused, throttled by the gateway).
   */
  readonly idempotent?: boolean;
}

export interface UpstreamResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
  /** How many attempts it took (1 = no retry). */
  readonly attempts: number;
}

export interface CallBudget {
  /** Milliseconds the function has left (Lambda's `getRemainingTimeInMillis`). */
  readonly remainingMs?: () => number;
  /** Aborts the call, e.g. middy's signal shortly before the function times out. */
  readonly signal?: AbortSignal | undefined;
}

export interface RetryPolicy {
  readonly maxAttempts: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
}

export interface UpstreamClientOptions {
  readonly dispatcher: Dispatcher;
  readonly timeoutMs: number;
  readonly retry?: Partial<RetryPolicy>;
  /** Time kept back from the function's remaining time to build the response. */
  readonly reserveMs?: number;
  readonly now?: () => number;
  readonly random?: () => number;
}

const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);
/** Errors raised before any byte of the request can have reached the upstream. */
const NOT_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'UND_ERR_CONNECT_TIMEOUT',
]);
/** The upstream accepted the connection but did not answer in time. */
const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);
/** Gateway throttling (429 with these codes) is refused before the endpoint is called. */
const THROTTLE_CODES = new Set(['410', '420']);
const DEFAULT_RETRY: RetryPolicy = { maxAttempts: 4, baseDelayMs: 100, maxDelayMs: 2000 };

/** One dispatcher per container: connections are reused across invocations. */
export function createDispatcher(): Dispatcher {
  return new Agent({
    keepAliveTimeout: 4000,
    keepAliveMaxTimeout: 60_000,
    connections: 64,
    connect: { timeout: 3000 },
  });
}

export class UpstreamClient {
  private readonly retry: RetryPolicy;
  private readonly now: () => number;
  private readonly random: () => number;

  constructor(private readonly options: UpstreamClientOptions) {
    this.retry = { ...DEFAULT_RETRY, ...options.retry };
    this.now = options.now ?? Date.now;
    this.random = options.random ?? Math.random;
  }

  async send(request: UpstreamRequest, budget: CallBudget = {}): Promise<UpstreamResponse> {
    const deadline = this.deadline(budget);
    const idempotent = request.idempotent ?? IDEMPOTENT_METHODS.has(request.method.toUpperCase());
    for (let attempt = 1; ; attempt++) {
      const outcome = await this.attempt(request, deadline, budget.signal, attempt);
      const retryable =
        attempt < this.retry.maxAttempts &&
        ('response' in outcome
          ? shouldRetryResponse(outcome.response, idempotent)
          : shouldRetryError(outcome.error, idempotent));
      const delay = retryable ? this.backoff(attempt, outcome) : undefined;
      if (delay === undefined || this.now() + delay >= deadline) {
        if ('response' in outcome) return outcome.response;
        throw outcome.error;
      }
      await sleep(delay, budget.signal);
    }
  }

  private deadline(budget: CallBudget): number {
    const remaining = budget.remainingMs?.();
    const reserve = this.options.reserveMs ?? 250;
    const allowed =
      remaining === undefined
        ? this.options.timeoutMs
        : Math.min(this.options.timeoutMs, remaining - reserve);
    return this.now() + Math.max(allowed, 0);
  }

  private async attempt(
    request: UpstreamRequest,
    deadline: number,
    callerSignal: AbortSignal | undefined,
    attempt: number,
  ): Promise<{ response: UpstreamResponse } | { error: Error }> {
    const timeLeft = deadline - this.now();
    if (timeLeft <= 0) return { error: new UpstreamTimeoutError() };
    try {
      // undici's own timers bound the wait for the headers and for each body chunk: an
      // AbortSignal per attempt would cost about 10% of a loopback request (see README).
      const answer = await dispatch(this.options.dispatcher, {
        origin: request.url.origin,
        path: request.url.pathname + request.url.search,
        method: request.method as Dispatcher.HttpMethod,
        headers: request.headers,
        body: request.body,
        signal: callerSignal,
        headersTimeout: timeLeft,
        bodyTimeout: timeLeft,
      });
      const body = Buffer.from(await answer.body.arrayBuffer());
      return {
        response: {
          status: answer.statusCode,
          headers: flatten(answer.headers),
          body,
          attempts: attempt,
        },
      };
    } catch (error) {
      return { error: classifyFailure(error, callerSignal) };
    }
  }

  /** Full jitter, raised to the upstream's Retry-After when it sends one. */
  private backoff(attempt: number, outcome: { response: UpstreamResponse } | { error: Error }) {
    const ceiling = Math.min(this.retry.maxDelayMs, this.retry.baseDelayMs * 2 ** (attempt - 1));
    const jittered = this.random() * ceiling;
    const retryAfter =
      'response' in outcome ? retryAfterMs(outcome.response.headers['retry-after']) : 0;
    return Math.max(jittered, retryAfter);
  }
}

function shouldRetryResponse(response: UpstreamResponse, idempotent: boolean): boolean {
  if (response.status === 429) return THROTTLE_CODES.has(errorCodeOf(response.body) ?? '');
  return idempotent && (response.status === 503 || response.status === 504);
}

function shouldRetryError(error: Error, idempotent: boolean): boolean {
  if (error instanceof UpstreamTimeoutError) return false; // the deadline is spent
  if (!(error instanceof UpstreamUnreachableError)) return false;
  return idempotent || NOT_SENT_CODES.has(codeOf(error.cause) ?? '');
}

function errorCodeOf(body: Buffer): string | undefined {
  try {
    const parsed: unknown = JSON.parse(body.toString('utf8'));
    if (typeof parsed === 'object' && parsed !== null) {
      return fieldsOf(parsed as Record<string, unknown>).code;
    }
  } catch {
    // An unreadable 429 body is not a gateway throttle we know how to wait for.
  }
  return undefined;
}

/** Maps a failed request to the taxonomy: our deadline or a stall is a timeout, the rest unreachable. */
function classifyFailure(error: unknown, signal: AbortSignal | undefined): Error {
  const code = codeOf(error);
  if (signal?.aborted || (code !== undefined && TIMEOUT_CODES.has(code))) {
    return new UpstreamTimeoutError(error);
  }
  return new UpstreamUnreachableError(error);
}

function codeOf(error: unknown): string | undefined {
  let current: unknown = error;
  // undici wraps socket errors; the system code may sit on the cause.
  for (let depth = 0; depth < 3 && current instanceof Error; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = current.cause;
  }
  return undefined;
}

function retryAfterMs(value: string | undefined): number {
  if (!value) return 0;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(seconds * 1000, 0);
  const date = Date.parse(value);
  return Number.isNaN(date) ? 0 : Math.max(date - Date.now(), 0);
}

function flatten(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined)
      flat[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
