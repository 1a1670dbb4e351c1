/**
 * One exchange with an upstream through undici's dispatch API, and the one dispatcher per
 * container it goes through. Shared by every call this package makes (the upstream client, the
 * secrets extension), so that the first call of a container warms the code of the next.
 */
import type { AnswerHandOff, AnswerTaker, StoredAnswer } from '../core/call-context.ts';
import { UpstreamResponseTooLargeError, UpstreamTimeoutError } from '../core/errors.ts';
import { Agent, type Dispatcher } from './undici.ts';

/** One dispatcher per container: connections are reused across invocations. */
export function createDispatcher(): Dispatcher {
  return new Agent({
    keepAliveTimeout: 4000,
    keepAliveMaxTimeout: 60_000,
    connections: 64,
    connect: { timeout: 3000 },
  });
}

export interface DispatchOnceOptions {
  /** Past this many bytes of body, the call fails with UpstreamResponseTooLargeError. */
  readonly maxBodyBytes: number;
  /** When set, an error answer (4xx, 5xx) is cut at this many bytes instead. */
  readonly maxErrorBodyBytes?: number;
  /** When it passes, the call fails with UpstreamTimeoutError. */
  readonly deadline?: Deadline;
  /** Called when the answer's status and headers arrive. */
  readonly onAnswer?: () => void;
  /**
   * Called as the request is about to be written on its connection (undici writes it at once
   * after); throws to stop it unwritten.
   */
  readonly onSend?: () => void;
  /**
   * Where a success answer too large to return goes (a route that passes its answer through):
   * it takes the body over from the exchange, and gives it back whole or stored. A HEAD answer
   * has no body, and is never handed off.
   */
  readonly handOff?: AnswerHandOff | undefined;
}

/**
 * One exchange through undici's dispatch API, shared by every call this package makes (the
 * upstream client, the secrets extension), so that the first call of a container warms the
 * code of the next. The body is collected as it arrives, with no stream and no abort signal
 * per call (together about 15 µs of CPU a request, docs/benchmark-method.md). Reading stops at the
 * limit for the answer's status, and the connection is then dropped; a success answer with a
 * hand-off is the hand-off's to read (it pauses undici while it is busy). When the
 * deadline passes, the promise rejects at once, and the request is aborted as soon as undici
 * hands it its controller (even while its connection is being set up).
 */
export function dispatchOnce(
  dispatcher: Dispatcher,
  request: Dispatcher.DispatchOptions,
  options: DispatchOnceOptions,
): Promise<DispatchedAnswer> {
  return new Promise<DispatchedAnswer>((resolve, reject) => {
    const deadline = options.deadline;
    let controller: Dispatcher.DispatchController | undefined;
    let settled = false;
    let status = 0;
    let headers: Record<string, string> = {};
    let limit = options.maxBodyBytes;
    let cutAtLimit = false;
    const chunks: Buffer[] = [];
    let size = 0;
    // A success answer's hand-off, which takes its body over (core/call-context.ts).
    let taker: AnswerTaker | undefined;
    const stop = (reason: Error) => {
      if (!settled) {
        settled = true;
        deadline?.unwatch();
        // Nothing of an answer that fails is kept: a store is cleared before the call fails,
        // unless the deadline has passed (the bucket's lifecycle rule clears what is left).
        const clearing = taker?.abort();
        if (clearing && !(reason instanceof UpstreamTimeoutError)) {
          void clearing.then(() => reject(reason));
        } else reject(reason);
      }
      controller?.abort(reason);
    };
    const finish = (body: Buffer, stored?: StoredAnswer) => {
      settled = true;
      deadline?.unwatch();
      resolve(stored ? { status, headers, body, stored } : { status, headers, body });
    };
    deadline?.watch(() => stop(new UpstreamTimeoutError()));
    dispatcher.dispatch(request, {
      onRequestStart: (started) => {
        controller = started;
        if (settled) return started.abort(new UpstreamTimeoutError());
        try {
          options.onSend?.();
        } catch (error) {
          stop(error as Error);
        }
      },
      onResponseStart: (started, statusCode, answerHeaders) => {
        if (settled || statusCode < 200) return;
        options.onAnswer?.();
        status = statusCode;
        headers = flatten(answerHeaders);
        const declared = Number(headers['content-length']);
        if (options.handOff && statusCode < 300 && request.method !== 'HEAD') {
          taker = options.handOff.take({
            status,
            headers,
            deadlineAt: deadline?.endsAt ?? Number.POSITIVE_INFINITY,
            flow: started,
            done: (answer) => settled || finish(answer.body, answer.stored),
            fail: stop,
          });
          return;
        }
        cutAtLimit = statusCode >= 400 && options.maxErrorBodyBytes !== undefined;
        if (cutAtLimit) limit = options.maxErrorBodyBytes ?? limit;
        // A HEAD answer declares the length of a body it does not carry.
        if (!cutAtLimit && request.method !== 'HEAD' && declared > limit) {
          stop(new UpstreamResponseTooLargeError(limit));
        }
      },
      onResponseData: (_controller, chunk) => {
        if (settled) return;
        if (taker) return taker.data(chunk);
        if (size + chunk.length <= limit) {
          chunks.push(chunk);
          size += chunk.length;
          return;
        }
        if (!cutAtLimit) return stop(new UpstreamResponseTooLargeError(limit));
        chunks.push(chunk.subarray(0, limit - size));
        size = limit;
        finish(Buffer.concat(chunks, size));
        // The rest is not read: the connection is dropped.
        controller?.abort(new UpstreamResponseTooLargeError(limit));
      },
      onResponseEnd: () => {
        if (settled) return;
        if (taker) return taker.end();
        finish(Buffer.concat(chunks, size));
      },
      onResponseError: (_controller, error) => {
        if (!settled) stop(error);
      },
    });
  });
}

function flatten(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const flat: Record<string, string> = {};
  // Own names only, as Object.entries gives them, without its array of pairs.
  for (const name in headers) {
    if (!Object.hasOwn(headers, name)) continue;
    const value = headers[name];
    if (value !== undefined)
      flat[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

/** What one exchange brought back. */
export interface DispatchedAnswer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: Buffer;
  /** Set when the answer was handed off: stored whole, and its body not kept here (empty). */
  readonly stored?: StoredAnswer;
}

/**
 * A call's deadline: one native timer for all its attempts. When it passes, it ends what is
 * watching it (the exchange in flight, or the wait before the next attempt).
 */
export class Deadline {
  expired = false;
  /** When it passes, in milliseconds since the epoch. */
  readonly endsAt: number;
  private onExpire: (() => void) | undefined;
  private readonly timer: NodeJS.Timeout;

  constructor(ms: number) {
    this.endsAt = Date.now() + ms;
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
