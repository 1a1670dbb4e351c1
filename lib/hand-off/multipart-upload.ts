/**
 * One answer written to S3 as it arrives (s3-multipart.ts: a multipart upload, parts of 8 MiB,
 * two in flight, the next one filling), the exchange paused while both are in flight and ended
 * at the first failure or past the ceiling; once whole, the stored answer and the presigned GET
 * URL its caller is sent to.
 *
 * Loaded on a container's first hand-off only: a function's bundle carries a stand-in that
 * requires this module's own bundle, written beside it when the package is built
 * (sls/plugins/esbuild-plugins.ts), so that an answer under the limit costs nothing more than
 * before. So nothing here is shared with the main bundle by identity: requests go out through
 * the `send` it is given, and the service's errors come from the factories it is given.
 */
import { randomUUID } from 'node:crypto';
import type { StoredAnswer } from '../core/call-context.ts';
import {
  type ObjectLocation,
  presignedGetUrl,
  type S3Answer,
  type S3Request,
  startUpload,
  type UploadOptions,
} from './s3-multipart.ts';
import type { AnswerOpening, AnswerSink } from './taker.ts';

/** What every hand-off of a container shares (bucket.ts): its bucket, its means, its errors. */
export interface HandOffSettings extends Omit<ObjectLocation, 'key'> {
  /** Sends one S3 request within the time left before `deadlineAt`. */
  readonly send: (request: S3Request, deadlineAt: number) => Promise<S3Answer>;
  /** The ceiling: an answer over it ends the exchange with `errors.tooLarge`. */
  readonly maxBytes: number;
  /** The service's own errors, which this module cannot make itself. */
  readonly errors: {
    /**
     * Over the ceiling: its declared size, when it declared one, and what to tell the caller
     * (written here, so that only the upload's bundle carries it).
     */
    readonly tooLarge: (declaredBytes: number | undefined, details: string) => Error;
    /** A failure of the upload, as the service reports it. */
    readonly failed: (cause: unknown) => Error;
  };
  /** How long the presigned URL is good for. */
  readonly urlSeconds: number;
  readonly partBytes?: number | undefined;
  readonly partsInFlight?: number | undefined;
  readonly now?: () => number;
}

/** How a stored answer is served: S3 answers with what the object keeps. */
interface StoredHeaders {
  readonly contentType: string;
  readonly contentDisposition: string;
  readonly cacheControl: string;
  readonly metadata: Readonly<Record<string, string>>;
}

/**
 * The types a stored answer keeps: raster images, audio and JSON, which a browser runs nothing
 * of. Any other type (HTML, SVG, XML, a script, a PDF, one unknown) is stored as
 * application/octet-stream: nothing active renders on the bucket's origin.
 */
const PASSIVE_TYPES = new Set([
  'application/json',
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
  'audio/mpeg',
  'audio/wav',
  'audio/x-wav',
  'audio/wave',
  'audio/ogg',
]);
/** S3 keeps at most 2 KB of user metadata; a longer or odd type is left out of it. */
const METADATA_VALUE = /^[\x20-\x7e]{1,256}$/;

/**
 * What the object keeps, whatever the platform sent: always an attachment (a report keeps its
 * file name), never in a cache, and a passive type or application/octet-stream. The platform's
 * own type stays in the object's metadata (`x-amz-meta-content-type`) and in the 303's body.
 */
export function storedHeadersOf(contentType: string, disposition?: string): StoredHeaders {
  const media = contentType.split(';', 1)[0]?.trim().toLowerCase() ?? '';
  return {
    contentType: PASSIVE_TYPES.has(media) ? contentType : 'application/octet-stream',
    contentDisposition:
      disposition && /^attachment(;|$)/i.test(disposition) ? disposition : 'attachment',
    cacheControl: 'private, no-store',
    metadata: METADATA_VALUE.test(contentType) ? { 'content-type': contentType } : {},
  };
}

/** One answer to hand off: the exchange's side, and what the object keeps. */
export interface HandOffRequest extends AnswerOpening {
  /** The function that stores it: its key's prefix (`<prefix>/<uuid>`). */
  readonly prefix: string;
  readonly contentType: string;
  /** Its attachment's Content-Disposition (a report's file name); `attachment` otherwise. */
  readonly contentDisposition?: string | undefined;
  /** Told once the answer is stored (the request line, the metrics). */
  readonly onStored?: (stored: StoredAnswer) => void;
}

/** What the caller is told of an answer over the ceiling: its size, or where reading stopped. */
function tooLargeDetails(maxBytes: number, bytes?: number): string {
  return `The platform's answer is ${bytes ?? `over ${maxBytes}`} bytes, over the ${maxBytes} this service hands off (HAND_OFF_MAX_MB); nothing of it was stored.`;
}

/**
 * The sink of one answer: its bytes, in order, to the upload, the exchange paused while the
 * upload is busy and ended at the first failure; once whole, the object and its presigned URL.
 * An answer that declares more than the ceiling is refused before anything is sent.
 */
export function openUpload(settings: HandOffSettings, request: HandOffRequest): AnswerSink {
  const { errors, maxBytes } = settings;
  if (request.declaredBytes !== undefined && request.declaredBytes > maxBytes) {
    throw errors.tooLarge(request.declaredBytes, tooLargeDetails(maxBytes, request.declaredBytes));
  }
  const now = settings.now ?? Date.now;
  // Only what is needed is kept: not the request, which holds the bytes read before the store.
  const { deadlineAt, flow, fail, onStored, contentType } = request;
  const options: UploadOptions = {
    ...settings,
    key: `${request.prefix}/${randomUUID()}`,
    send: (s3Request) => settings.send(s3Request, deadlineAt),
    ...storedHeadersOf(request.contentType, request.contentDisposition),
    deadlineAt,
  };
  const upload = startUpload(options);
  const pending: Buffer[] = [...request.held];
  let bytes = pending.reduce((sum, chunk) => sum + chunk.length, 0);
  let waiting = false;
  let stopped = false;
  let drained: (() => void) | undefined;
  const stop = (error: Error) => {
    if (stopped) return;
    stopped = true;
    fail(error);
    drained?.();
  };
  const pump = () => {
    if (waiting || stopped) return;
    while (pending.length > 0) {
      let wait: Promise<void> | undefined;
      try {
        wait = upload.write(pending.shift() as Buffer);
      } catch (error) {
        return stop(errors.failed(error));
      }
      if (wait) {
        waiting = true;
        flow.pause();
        wait.then(
          () => {
            waiting = false;
            pump();
          },
          (error: unknown) => stop(errors.failed(error)),
        );
        return;
      }
    }
    flow.resume();
    drained?.();
  };
  if (bytes > maxBytes) stop(errors.tooLarge(undefined, tooLargeDetails(maxBytes)));
  else pump();
  return {
    write(chunk) {
      if (stopped) return;
      bytes += chunk.length;
      if (bytes > maxBytes) return stop(errors.tooLarge(undefined, tooLargeDetails(maxBytes)));
      pending.push(chunk);
      pump();
    },
    async end() {
      await new Promise<void>((resolve) => {
        drained = resolve;
        pump();
      });
      if (stopped) throw errors.failed(new Error('the answer did not reach its end'));
      const stored = await upload.end().catch((error: unknown) => {
        throw errors.failed(error);
      });
      const signedAt = now();
      const answer: StoredAnswer = {
        key: options.key,
        bytes: stored.bytes,
        sha256: stored.sha256,
        // The platform's own type, which the 303's body tells the caller.
        contentType,
        url: presignedGetUrl(options, settings.urlSeconds, new Date(signedAt)),
        expiresAt: new Date(signedAt + settings.urlSeconds * 1000),
      };
      onStored?.(answer);
      return answer;
    },
    abort: () => upload.abort(),
  };
}
