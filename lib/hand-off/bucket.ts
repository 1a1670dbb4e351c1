/**
 * The stage's hand-off bucket: where an answer too large for a Lambda response is stored, as it
 * arrives, for its caller to fetch with a presigned URL (docs/errors.md, "Answers of any size").
 * One per container, built with its runtime; each answer is one object, `<function>/<uuid>`,
 * under the prefix of the function that stored it (its role may write there and nowhere else).
 *
 * The upload (multipart-upload.ts, over s3-multipart.ts: the ceiling, S3's calls, the URL's
 * signature) is loaded on the first hand-off only; its requests go through the container's
 * undici dispatcher, each within the time the call has left, signed with the function's own
 * credentials.
 */
import { deployedSetting } from '../core/deployed-settings.ts';
import { UpstreamResponseTooLargeError, UpstreamTimeoutError } from '../core/errors.ts';
import { perRuntime } from '../core/per-runtime.ts';
import type { Runtime } from '../runtime.ts';
import type { SigningCredentials } from '../secrets/sign-v4.ts';
import { Deadline, dispatchOnce } from '../upstream/dispatch.ts';
import type { Dispatcher } from '../upstream/undici.ts';
import type { HandOffRequest, HandOffSettings } from './multipart-upload.ts';
import type { AnswerSink } from './taker.ts';

interface HandOffBucketOptions {
  readonly bucket: string;
  readonly region: string;
  /** A local stand-in's or moto's endpoint; unset, AWS's own. */
  readonly endpoint?: URL | undefined;
  readonly credentials: SigningCredentials;
  /** The largest answer stored (HAND_OFF_MAX_MB); a larger one is refused, nothing kept. */
  readonly maxBytes: number;
  readonly dispatcher: Dispatcher;
  /** The upload's parts: their size, and how many go at once (tests). */
  readonly partBytes?: number;
  readonly partsInFlight?: number;
  readonly now?: () => number;
}

/** Over the hand-off's ceiling: 502/`900`, with what the upload says of it (multipart-upload.ts). */
function tooLarge(maxBytes: number, details: string): UpstreamResponseTooLargeError {
  return new UpstreamResponseTooLargeError(maxBytes, { details, reason: 'hand-off-too-large' });
}

/** The bucket refused the answer or did not answer: 502/`900` (the deadline passing stays a 504). */
function failed(cause: unknown): Error {
  if (cause instanceof UpstreamTimeoutError || cause instanceof UpstreamResponseTooLargeError) {
    return cause;
  }
  return new UpstreamResponseTooLargeError(0, {
    details:
      "The platform's answer is too large to return, and storing it for its hand-off failed.",
    reason: 'hand-off-failed',
    cause,
  });
}

/** S3's answers to the upload's calls are small XML documents. */
const MAX_S3_ANSWER_BYTES = 64 * 1024;

export class HandOffBucket {
  private module: Promise<typeof import('./multipart-upload.ts')> | undefined;
  private readonly settings: HandOffSettings;

  constructor(options: HandOffBucketOptions) {
    const now = options.now ?? Date.now;
    this.settings = {
      ...options,
      send: async (request, deadlineAt) => {
        const left = deadlineAt - now();
        if (left <= 0) throw new UpstreamTimeoutError();
        const deadline = new Deadline(left);
        try {
          return await dispatchOnce(
            options.dispatcher,
            {
              origin: request.url.origin,
              path: request.url.pathname + request.url.search,
              method: request.method,
              headers: request.headers,
              // undici sends any iterable of chunks (its types name only a few kinds of body).
              body: request.body as Dispatcher.DispatchOptions['body'],
              headersTimeout: left + 1000,
              bodyTimeout: left + 1000,
            },
            { maxBodyBytes: MAX_S3_ANSWER_BYTES, deadline },
          );
        } finally {
          deadline.clear();
        }
      },
      errors: { tooLarge: (_bytes, details) => tooLarge(options.maxBytes, details), failed },
      // A presigned URL is good for 15 minutes.
      urlSeconds: 15 * 60,
    };
  }

  /** Starts storing one answer: the sink its body goes to as it arrives. */
  async open(request: HandOffRequest): Promise<AnswerSink> {
    this.module ??= import('./multipart-upload.ts');
    const module = await this.module.catch((error: unknown) => {
      this.module = undefined;
      throw failed(error);
    });
    return module.openUpload(this.settings, request);
  }
}

/**
 * The container's hand-off bucket: required when deployed by a function that hands off
 * (HAND_OFF_BUCKET; its init fails without it), absent locally unless a bucket is set (then an
 * answer too large is refused, 502/`520`, as it is without a hand-off).
 */
export const handOffBucketOf = perRuntime((runtime: Runtime): HandOffBucket | undefined => {
  const { config } = runtime;
  const bucket = deployedSetting(config, config.handOffBucket, 'HAND_OFF_BUCKET');
  const { credentials, region, s3Endpoint } = config.aws;
  if (!bucket || !credentials || !region) return undefined;
  return new HandOffBucket({
    bucket,
    region,
    endpoint: s3Endpoint,
    credentials,
    maxBytes: config.handOffMaxBytes,
    dispatcher: runtime.dispatcher,
    now: runtime.now,
  });
});
