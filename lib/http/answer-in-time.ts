/**
 * The last-resort guard around the whole stack. Whatever hangs (an upstream call, a slow secret
 * fetch in the caller check), the caller gets the 504/`510` error body before the function's own
 * timeout, never the runtime's timeout error. Its state is its timer, in a closure per request.
 * When it responds, it tells the request's calls (request-calls.ts), so that none goes out after.
 * middy's own early timeout is off: it races only the handler, not the middlewares before it.
 */
import { UpstreamTimeoutError } from '../core/errors.ts';
import { encodeError, negotiateErrorFormat } from './envelope.ts';
import type { RequestState } from './request-state.ts';
import type { HttpResponse } from './responses.ts';

/**
 * Kept back from the function's remaining time. Smaller than the upstream client's reserve, so
 * that an upstream call's own deadline normally answers first.
 */
const GUARD_RESERVE_MS = 100;

export function answerInTime(
  work: Promise<HttpResponse>,
  state: RequestState,
): Promise<HttpResponse> {
  const lambda = state.lambda;
  if (typeof lambda.getRemainingTimeInMillis !== 'function') return work;
  // One promise and one timer a request: settled by the work, or by the timer first.
  return new Promise<HttpResponse>((resolve, reject) => {
    const timer = setTimeout(
      () => {
        const error = new UpstreamTimeoutError();
        // Nothing more of it goes out (what it took of its plans goes back unless a call did).
        state.calls.answered();
        state.log.error('no answer before the function timeout', {
          errorCode: error.code,
          reason: error.reason,
        });
        resolve(encodeError(error, negotiateErrorFormat(state.headers)));
      },
      Math.max(lambda.getRemainingTimeInMillis() - GUARD_RESERVE_MS, 0),
    );
    work.then(
      (answer) => {
        clearTimeout(timer);
        resolve(answer);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
