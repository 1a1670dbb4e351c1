/**
 * The upstream HTTP client: undici over one keep-alive dispatcher per container, one deadline
 * per call that covers every attempt whole (connect, headers, body, backoff), answers read only
 * as far as they can be used, and retries decided by one table (retryPolicy.ts).
 *
 * Retries are decided here rather than by undici's retry interceptor because the decision needs
 * who answered and the gateway's errorCode from the body (429 `410`/`420` from the gateway are
 * retried; the same from an action is its own answer), and because every wait must fit in the
 * caller's deadline.
 */

import {
  UnexpectedError,
  UpstreamResponseTooLargeError,
  UpstreamTimeoutError,
  UpstreamUnreachableError,
} from '../core/errors.js';
import { LAMBDA_PAYLOAD_LIMIT_BYTES } from '../core/lambda-limits.js';
import { countMetric } from '../core/metrics.js';
import type { CallBudget } from '../core/time-budget.js';
import { identifyAnswer } from './answer-origin.js';
import { MAX_DECODED_ERROR_BYTES } from './error-decoding.js';
import { type AttemptOutcome, mayRetry, type TransportFailure } from './retry-policy.js';
import { Agent, type Dispatcher } from './undici.js';

interface UpstreamRequest {
  readonly method: string;
  readonly url: URL;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string | Uint8Array | undefined;
  /**
   * Safe to send twice. Defaults to true for GET, HEAD, OPTIONS, PUT and DELETE; a POST that
   * only reads (a search) may say so. A non-idempotent call is repeated only when it cannot
   * have reached the endpoint (retryPolicy.ts).
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
}

export interface UpstreamResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
  /** How many attempts it took (1 = no retry). */
  readonly attempts: number;
}

export type { CallBudget } from '../core/time-budget.js';

interface RetryPolicy {
  readonly maxAttempts: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
}

interface UpstreamClientOptions {
  readonly dispatcher: Dispatcher;
  readonly timeoutMs: number;
  /** The vendor word of the gateway's headers (`x-<vendor>-apigw-response-origin`). */
  readonly vendor?: string;
  readonly retry?: Partial<RetryPolicy>;
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
/** Errors raised before any byte of the request can have reached the upstream. */
const NOT_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'UND_ERR_CONNECT_TIMEOUT',
]);
/** undici's own stall timers: only a backstop behind the deadline. */
const STALL_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);
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

type Attempt =
  | { readonly response: UpstreamResponse; readonly outcome: AttemptOutcome }
  | { readonly error: Error; readonly outcome: AttemptOutcome };

export class UpstreamClient {
  private readonly retry: RetryPolicy;
  private readonly now: () => number;
  private readonly random: () => number;
  private readonly vendor: string;
  private readonly maxBodyBytes: number;

  constructor(private readonly options: UpstreamClientOptions) {
    this.retry = { ...DEFAULT_RETRY, ...options.retry };
    this.now = options.now ?? (() => Date.now());
    this.random = options.random ?? Math.random;
    this.vendor = options.vendor ?? 'platform';
    this.maxBodyBytes = options.maxBodyBytes ?? MAX_UPSTREAM_BODY_BYTES;
  }

  /** Sends the request, retrying as the table says; counts the call's outcome (metrics.ts). */
  async send(request: UpstreamRequest, budget: CallBudget = {}): Promise<UpstreamResponse> {
    const service = { Service: request.service ?? 'unknown' };
    try {
      const response = await this.exchange(request, budget);
      const status = response.status;
      countMetric('UpstreamCalls', {
        ...service,
        Outcome: status < 400 ? 'success' : status < 500 ? 'client-error' : 'server-error',
      });
      if (response.attempts > 1) countMetric('UpstreamRetries', service, response.attempts - 1);
      return response;
    } catch (error) {
      const outcome =
        error instanceof UpstreamTimeoutError
          ? 'timeout'
          : error instanceof UpstreamUnreachableError
            ? 'unreachable'
            : error instanceof UpstreamResponseTooLargeError
              ? 'too-large'
              : 'failed';
      countMetric('UpstreamCalls', { ...service, Outcome: outcome });
      if (outcome === 'timeout') countMetric('UpstreamTimeouts', service);
      throw error;
    }
  }

  private async exchange(request: UpstreamRequest, budget: CallBudget): Promise<UpstreamResponse> {
    const allowedMs = this.allowedMs(budget);
    if (allowedMs <= 0) throw new UpstreamTimeoutError();
    const deadlineAt = this.now() + allowedMs;
    const idempotent = request.idempotent ?? IDEMPOTENT_METHODS.has(request.method.toUpperCase());
    // One native timer per call, whatever the number of attempts: undici's timers above 1 s tick
    // every ~0.5 s, and its body timeout restarts at every chunk.
    const deadline = new Deadline(allowedMs);
    try {
      for (let attempt = 1; ; attempt++) {
        const result = await this.attempt(request, deadline, attempt, allowedMs);
        const delay =
          attempt < this.retry.maxAttempts && mayRetry(result.outcome, idempotent)
            ? this.backoff(attempt, result)
            : undefined;
        if (delay === undefined || this.now() + delay >= deadlineAt) {
          if ('response' in result) return result.response;
          throw result.error;
        }
        await deadline.sleep(delay);
      }
    } finally {
      deadline.clear();
    }
  }

  private allowedMs(budget: CallBudget): number {
    const remaining = budget.remainingMs?.();
    const reserve = this.options.reserveMs ?? DEFAULT_RESERVE_MS;
    return remaining === undefined
      ? this.options.timeoutMs
      : Math.min(this.options.timeoutMs, remaining - reserve);
  }

  private async attempt(
    request: UpstreamRequest,
    deadline: Deadline,
    attempt: number,
    backstopMs: number,
  ): Promise<Attempt> {
    if (deadline.expired) return failed(new UpstreamTimeoutError(), 'deadline');
    let answered = false;
    try {
      const { status, headers, body } = await dispatchOnce(
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
        },
      );
      const response = { status, headers, body, attempts: attempt };
      if (status < 400)
        return { response, outcome: { kind: 'answer', status, origin: 'endpoint' } };
      const identity = identifyAnswer(status, headers, body, this.vendor);
      return { response, outcome: { kind: 'answer', status, ...identity } };
    } catch (error) {
      if (deadline.expired) {
        return failed(new UpstreamTimeoutError(error), 'deadline');
      }
      if (error instanceof UpstreamResponseTooLargeError) return failed(error, 'too-large');
      const code = codeOf(error);
      // A request undici refuses to send is this service's fault, not the upstream's.
      if (code === 'UND_ERR_INVALID_ARG') throw new UnexpectedError(error);
      if (code !== undefined && STALL_CODES.has(code)) {
        return failed(new UpstreamTimeoutError(error), 'deadline');
      }
      const failure: TransportFailure = answered
        ? 'during-body'
        : code !== undefined && NOT_SENT_CODES.has(code)
          ? 'not-sent'
          : 'before-answer';
      return failed(new UpstreamUnreachableError(error), failure);
    }
  }

  /** Full jitter, raised to the upstream's Retry-After when it sends one. */
  private backoff(attempt: number, result: Attempt): number {
    const ceiling = Math.min(this.retry.maxDelayMs, this.retry.baseDelayMs * 2 ** (attempt - 1));
    const jittered = this.random() * ceiling;
    const retryAfter =
      'response' in result ? retryAfterMs(result.response.headers['retry-after']) : 0;
    return Math.max(jittered, retryAfter);
  }
}

interface DispatchOnceOptions {
  /** Past this many bytes of body, the call fails with UpstreamResponseTooLargeError. */
  readonly maxBodyBytes: number;
  /** When set, an error answer (4xx, 5xx) is cut at this many bytes instead. */
  readonly maxErrorBodyBytes?: number;
  /** When it passes, the call fails with UpstreamTimeoutError. */
  readonly deadline?: Deadline;
  /** Called when the answer's status and headers arrive. */
  readonly onAnswer?: () => void;
}

/**
 * One exchange through undici's dispatch API, shared by every call this package makes (the
 * upstream client, the secrets extension), so that the first call of a container warms the
 * code of the next. The body is collected as it arrives, with no stream and no abort signal
 * per call (together about 15 µs of CPU a request, docs/benchmarks.md). Reading stops at the
 * limit for the answer's status, and the connection is then dropped. When the deadline passes,
 * the promise rejects at once, and the request is aborted as soon as undici hands it its
 * controller (even while its connection is being set up).
 */
export function dispatchOnce(
  dispatcher: Dispatcher,
  request: Dispatcher.DispatchOptions,
  options: DispatchOnceOptions,
): Promise<Exchanged> {
  return new Promise<Exchanged>((resolve, reject) => {
    const deadline = options.deadline;
    let controller: Dispatcher.DispatchController | undefined;
    let settled = false;
    let status = 0;
    let headers: Record<string, string> = {};
    let limit = options.maxBodyBytes;
    let cutAtLimit = false;
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = (reason: Error) => {
      if (!settled) {
        settled = true;
        deadline?.unwatch();
        reject(reason);
      }
      controller?.abort(reason);
    };
    const finish = () => {
      settled = true;
      deadline?.unwatch();
      resolve({ status, headers, body: Buffer.concat(chunks, size) });
    };
    deadline?.watch(() => stop(new UpstreamTimeoutError()));
    dispatcher.dispatch(request, {
      onRequestStart: (started) => {
        controller = started;
        if (settled) started.abort(new UpstreamTimeoutError());
      },
      onResponseStart: (_controller, statusCode, answerHeaders) => {
        if (settled || statusCode < 200) return;
        options.onAnswer?.();
        status = statusCode;
        headers = flatten(answerHeaders);
        cutAtLimit = statusCode >= 400 && options.maxErrorBodyBytes !== undefined;
        if (cutAtLimit) limit = options.maxErrorBodyBytes ?? limit;
        const declared = Number(headers['content-length']);
        if (!cutAtLimit && declared > limit) stop(new UpstreamResponseTooLargeError(limit));
      },
      onResponseData: (_controller, chunk) => {
        if (settled) return;
        if (size + chunk.length <= limit) {
          chunks.push(chunk);
          size += chunk.length;
          return;
        }
        if (!cutAtLimit) return stop(new UpstreamResponseTooLargeError(limit));
        chunks.push(chunk.subarray(0, limit - size));
        size = limit;
        finish();
        // The rest is not read: the connection is dropped.
        controller?.abort(new UpstreamResponseTooLargeError(limit));
      },
      onResponseEnd: () => {
        if (!settled) finish();
      },
      onResponseError: (_controller, error) => {
        if (!settled) stop(error);
      },
    });
  });
}

function failed(error: Error, failure: TransportFailure): Attempt {
  return { error, outcome: { kind: 'transport', failure } };
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

/** What one exchange brought back. */
export interface Exchanged {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: Buffer;
}

/**
 * A call's deadline: one native timer for all its attempts. When it passes, it ends what is
 * watching it (the exchange in flight, or the wait before the next attempt).
 */
class Deadline {
  expired = false;
  private onExpire: (() => void) | undefined;
  private readonly timer: NodeJS.Timeout;

  constructor(ms: number) {
    this.timer = setTimeout(() => {
      this.expired = true;
      this.onExpire?.();
    }, ms);
  }

  watch(onExpire: () => void): void {
    this.onExpire = onExpire;
  }

  unwatch(): void {
    this.onExpire = undefined;
  }

  /** Waits `ms`, or less when the deadline passes first. */
  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.unwatch();
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.watch(done);
    });
  }

  clear(): void {
    clearTimeout(this.timer);
    this.onExpire = undefined;
  }
}
