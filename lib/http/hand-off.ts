/**
 * The hand-off of a route that passes its answer through (a report, speech, a map image, an
 * action's answer; `handsOff` in the registry): a success answer too large for the function's
 * response is stored in the stage's bucket as it arrives (lib/hand-off/bucket.ts), and the caller
 * gets 303 See Other to it (responses.ts). Bound by the functions that serve such routes, so that
 * no other function carries any of it:
 *
 *   bind(jobRoutes.getJobReport, handler, { ...parts, handOff: answerHandOff(runtime) })
 *
 * The request line names the stored object (`handOffKey`, `handOffBytes`); its caller's plan
 * counts the request, and one unit more for each MB started of the stored answer (admission).
 */
import type { AnswerHandOff, StoredAnswer } from '../core/call-context.ts';
import { handOffBucketOf } from '../hand-off/bucket.ts';
import { answerTaker } from '../hand-off/taker.ts';
import type { Runtime } from '../runtime.ts';
import type { UpstreamAnswer } from '../upstream/client.ts';
import type { RequestState } from './request-state.ts';
import {
  ANSWER_LENGTH,
  fitsResponse,
  type HttpResponse,
  passThrough,
  readLimitOf,
} from './responses.ts';
import type { Route } from './routes/route.ts';

/** A request's hand-off, when the stage has a bucket for it. */
export type HandOffOf = (state: RequestState, route: Route) => AnswerHandOff | undefined;

/**
 * The hand-off of the container's runtime: its bucket, for each request of a route that hands
 * off. `attachment` gives the stored object's Content-Disposition (a report's file name), from
 * the validated path and the answer's media type.
 */
export function answerHandOff<P>(
  runtime: Runtime,
  options: { readonly attachment?: (path: P, contentType: string) => string } = {},
): HandOffOf {
  // Built now, at cold start: a deployed function without HAND_OFF_BUCKET fails its init.
  const bucket = handOffBucketOf(runtime);
  return (state, route) =>
    bucket &&
    answerTaker({
      readLimit: readLimitOf,
      fits: fitsResponse,
      open: (answer) => {
        const contentType = answer.headers['content-type'] ?? 'application/octet-stream';
        return bucket.open({
          ...answer,
          prefix: route.function,
          contentType,
          contentDisposition: options.attachment?.(state.input?.path as P, contentType),
          onStored: (stored) => {
            // What the request stored, on its request line.
            state.target({ handOffKey: stored.key, handOffBytes: stored.bytes });
            state.metrics.count('HandOffs', {});
            state.metrics.count('HandOffBytes', {}, stored.bytes);
          },
        });
      },
    });
}

/**
 * The answer to a request whose upstream answer was handed off: 303 See Other to the stored
 * object's presigned URL, its length and SHA-256 (RFC 9530's syntax) in `Answer-Length` and
 * `Answer-Digest`, and the same in a small JSON body for a client that does not follow
 * redirects, with the platform's own status (a 2xx).
 */
export function handedOffResponse(stored: StoredAnswer, status: number): HttpResponse {
  return {
    statusCode: 303,
    headers: {
      location: stored.url,
      [ANSWER_LENGTH]: String(stored.bytes),
      'answer-digest': `sha-256=:${stored.sha256}:`,
      'cache-control': 'no-store',
      'content-type': 'application/json',
    },
    body: JSON.stringify({
      handOff: {
        location: stored.url,
        expiresAt: stored.expiresAt.toISOString(),
        contentLength: stored.bytes,
        contentType: stored.contentType,
        sha256: stored.sha256,
        status,
      },
    }),
  };
}

/**
 * The upstream's answer passed through (responses.ts), or the 303 to it once handed off, with
 * the same headers of the answer kept (an action's activation id).
 */
export function passThroughOrHandedOff(
  upstream: UpstreamAnswer,
  statusCode?: number,
  keptHeaders: readonly string[] = [],
): HttpResponse {
  if (!upstream.stored) return passThrough(upstream, statusCode, keptHeaders);
  const response = handedOffResponse(upstream.stored, upstream.status);
  for (const name of keptHeaders) {
    const value = upstream.headers[name];
    if (value !== undefined && response.headers) response.headers[name] = value;
  }
  return response;
}
