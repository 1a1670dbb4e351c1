/**
 * One answer written to S3 as it arrives (a multipart upload: parts of 8 MiB, two in flight, the
 * next one filling; the exchange paused while both are in flight), and the presigned GET URL of
 * the object once it is whole. Each part is signed with its own SHA-256, which S3 checks against
 * the bytes it receives; the SHA-256 of the whole answer is computed on the way, for the caller.
 *
 * Loaded on a container's first hand-off only: a function's bundle carries a stand-in that
 * requires this module's own bundle, written beside it when the package is built
 * (sls/plugins/esbuild-plugins.cjs), so that an answer under the limit costs nothing more than
 * before. So nothing here is shared with the main bundle by identity: requests go out through
 * the `send` it is given, and the service's errors come from the factories it is given.
 *
 * https://docs.aws.amazon.com/AmazonS3/latest/userguide/mpuoverview.html
 */
import { createHash, type Hash, randomUUID } from 'node:crypto';
import {
  canonicalQuery,
  encodeRfc3986,
  presignS3,
  type SigningCredentials,
  signS3,
} from '../secrets/sign-v4.js';
import type { StoredAnswer } from '../core/call-context.js';
import type { AnswerOpening, AnswerSink } from './taker.js';

/** One request to S3, as `send` sends it. */
export interface S3Request {
  readonly method: 'GET' | 'PUT' | 'POST' | 'DELETE';
  /** Origin, path and query, exactly as signed. */
  readonly url: URL;
  readonly headers: Readonly<Record<string, string>>;
  /** The body: bytes (a part's chunks, in order) or text. */
  readonly body?: readonly Buffer[] | string;
}

export interface S3Answer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
}

/** Sends one request and gives its answer; throws when it got none (its time ran out, ...). */
export type SendToS3 = (request: S3Request) => Promise<S3Answer>;

/** Where an object is. */
export interface ObjectLocation {
  readonly bucket: string;
  readonly key: string;
  readonly region: string;
  /**
   * An endpoint other than AWS's (a local stand-in, moto): addressed path-style,
   * `<endpoint>/<bucket>/<key>`. Unset: `https://<bucket>.s3.<region>.amazonaws.com/<key>`.
   */
  readonly endpoint?: URL | undefined;
  readonly credentials: SigningCredentials;
}

export interface UploadOptions extends ObjectLocation {
  readonly send: SendToS3;
  /** Kept with the object, and answered with it. */
  readonly contentType: string;
  readonly contentDisposition?: string | undefined;
  /** When the call ends (ms since the epoch): no request is retried past it. */
  readonly deadlineAt: number;
  /** At least 5 MiB, S3's smallest part but the last. Default 8 MiB. */
  readonly partBytes?: number;
  /** Parts sent at once; `write` asks the caller to wait beyond. Default 2. */
  readonly partsInFlight?: number;
  readonly now?: () => number;
}

/** The answer being written: bytes in order, then `end`, or `abort`. */
export interface Upload {
  /** A promise when the caller should wait before the next bytes (parts in flight). */
  write(chunk: Buffer): Promise<void> | undefined;
  /** Sends what is left and completes the object: its size and SHA-256 (base64). */
  end(): Promise<{ readonly bytes: number; readonly sha256: string }>;
  /** Waits for the parts in flight, then aborts the upload: nothing of it is kept. */
  abort(): Promise<void>;
}

/** S3 refused a request (its error code and status), or answered one strangely. */
export class S3RequestError extends Error {
  override name = 'S3RequestError';
  constructor(
    readonly operation: string,
    readonly status: number,
    readonly code: string,
  ) {
    super(`S3 ${operation} answered ${status} ${code}`);
  }
}

const MIB = 1024 * 1024;
const DEFAULT_PART_BYTES = 8 * MIB;
const DEFAULT_PARTS_IN_FLIGHT = 2;
/** Tries of one request that met S3's own failure (500, 503 SlowDown) or no answer. */
const MAX_TRIES = 3;
const EMPTY_SHA256 = createHash('sha256').digest('hex');

/** The object's URL: path-style on a given endpoint, virtual-hosted on AWS's. */
export function objectUrl(location: ObjectLocation): URL {
  const key = location.key.split('/').map(encodeRfc3986).join('/');
  if (!location.endpoint) {
    return new URL(`https://${location.bucket}.s3.${location.region}.amazonaws.com/${key}`);
  }
  const base = location.endpoint.href.replace(/\/+$/, '');
  return new URL(`${base}/${encodeRfc3986(location.bucket)}/${key}`);
}

/**
 * A presigned GET URL of the object: whoever holds it may read that one object, until it
 * expires (`expiresSeconds` from `now`), and nothing else.
 */
export function presignedGetUrl(
  location: ObjectLocation,
  expiresSeconds: number,
  now: Date = new Date(),
): string {
  const url = objectUrl(location);
  const query = presignS3(
    { method: 'GET', host: url.host, path: url.pathname, region: location.region },
    location.credentials,
    expiresSeconds,
    now,
  );
  return `${url.origin}${url.pathname}?${query}`;
}

/** The first `<Code>` of an S3 error document, or undefined when the body holds none. */
function errorCodeIn(body: Buffer): string | undefined {
  const text = body.toString('utf8', 0, Math.min(body.length, 4096));
  if (!text.includes('<Error>')) return undefined;
  return /<Code>([^<]{1,64})<\/Code>/.exec(text)?.[1] ?? 'UnknownError';
}

/** S3's own failures: another try may do. */
const TRANSIENT_STATUSES = new Set([500, 503]);

export function startUpload(options: UploadOptions): Upload {
  const now = options.now ?? Date.now;
  const partBytes = Math.max(options.partBytes ?? DEFAULT_PART_BYTES, 5 * MIB);
  const partsInFlight = options.partsInFlight ?? DEFAULT_PARTS_IN_FLIGHT;
  const url = objectUrl(options);

  /** Signs and sends one request, trying again after S3's own failures while time is left. */
  const request = async (
    operation: string,
    method: S3Request['method'],
    query: readonly (readonly [string, string])[],
    headers: Record<string, string>,
    body?: readonly Buffer[] | string,
  ): Promise<S3Answer> => {
    for (let attempt = 1; ; attempt++) {
      const signed = signS3(
        {
          method,
          host: url.host,
          path: url.pathname,
          query,
          region: options.region,
          payloadHash: headers['x-amz-content-sha256'] ?? EMPTY_SHA256,
          headers,
        },
        options.credentials,
        new Date(now()),
      );
      const target = new URL(url);
      target.search = canonicalQuery(query);
      const retry = attempt < MAX_TRIES && options.deadlineAt - now() > 200;
      let answer: S3Answer;
      try {
        answer = await options.send({ method, url: target, headers: signed, body });
      } catch (error) {
        if (retry) continue;
        throw error;
      }
      // CompleteMultipartUpload may answer 200 with an error document.
      const code = errorCodeIn(answer.body);
      if (answer.status < 300 && code === undefined) return answer;
      if (retry && (TRANSIENT_STATUSES.has(answer.status) || code === 'InternalError')) {
        await new Promise((resolve) => setTimeout(resolve, 50 * 2 ** (attempt - 1)));
        continue;
      }
      throw new S3RequestError(operation, answer.status, code ?? 'UnknownError');
    }
  };

  const created = (async () => {
    const headers: Record<string, string> = {
      'content-type': options.contentType,
      'x-amz-content-sha256': EMPTY_SHA256,
    };
    if (options.contentDisposition) headers['content-disposition'] = options.contentDisposition;
    const answer = await request('CreateMultipartUpload', 'POST', [['uploads', '']], headers);
    const id = /<UploadId>([^<]+)<\/UploadId>/.exec(answer.body.toString('utf8'))?.[1];
    if (!id) throw new S3RequestError('CreateMultipartUpload', answer.status, 'NoUploadId');
    return id;
  })();
  // Its failure is met by the first part that waits for it, or by end or abort.
  created.catch(() => {});

  const whole = createHash('sha256');
  let bytes = 0;
  let part: Buffer[] = [];
  let partSize = 0;
  let partHash: Hash = createHash('sha256');
  let partNumber = 0;
  const etags = new Map<number, string>();
  const inFlight = new Set<Promise<void>>();
  let failure: unknown;
  let aborting: Promise<void> | undefined;

  const sendPart = (number: number, chunks: Buffer[], size: number, sha256: string) => {
    const sending = (async () => {
      const uploadId = await created;
      const answer = await request(
        'UploadPart',
        'PUT',
        [
          ['partNumber', String(number)],
          ['uploadId', uploadId],
        ],
        { 'content-length': String(size), 'x-amz-content-sha256': sha256 },
        chunks,
      );
      const etag = answer.headers.etag;
      if (!etag) throw new S3RequestError('UploadPart', answer.status, 'NoETag');
      etags.set(number, etag);
    })().catch((error: unknown) => {
      failure ??= error;
    });
    inFlight.add(sending);
    void sending.finally(() => inFlight.delete(sending));
  };

  const flush = () => {
    partNumber += 1;
    sendPart(partNumber, part, partSize, partHash.digest('hex'));
    part = [];
    partSize = 0;
    partHash = createHash('sha256');
  };

  const check = () => {
    if (failure !== undefined) throw failure;
    if (aborting) throw new S3RequestError('UploadPart', 0, 'Aborted');
  };

  return {
    write(chunk) {
      check();
      whole.update(chunk);
      partHash.update(chunk);
      part.push(chunk);
      partSize += chunk.length;
      bytes += chunk.length;
      if (partSize >= partBytes) flush();
      if (inFlight.size < partsInFlight) return undefined;
      return Promise.race(inFlight).then(check);
    },

    async end() {
      check();
      if (partSize > 0 || partNumber === 0) flush();
      while (inFlight.size > 0) await Promise.all(inFlight);
      check();
      const uploadId = await created;
      const parts = [...etags.entries()]
        .sort(([a], [b]) => a - b)
        .map(
          ([number, etag]) => `<Part><PartNumber>${number}</PartNumber><ETag>${etag}</ETag></Part>`,
        )
        .join('');
      const document = `<CompleteMultipartUpload xmlns="http://s3.amazonaws.com/doc/2006-03-01/">${parts}</CompleteMultipartUpload>`;
      await request(
        'CompleteMultipartUpload',
        'POST',
        [['uploadId', uploadId]],
        {
          'content-type': 'application/xml',
          'x-amz-content-sha256': createHash('sha256').update(document).digest('hex'),
        },
        document,
      );
      return { bytes, sha256: whole.digest('base64') };
    },

    abort() {
      aborting ??= (async () => {
        while (inFlight.size > 0) await Promise.all(inFlight);
        const uploadId = await created.catch(() => undefined);
        if (uploadId === undefined) return;
        await request('AbortMultipartUpload', 'DELETE', [['uploadId', uploadId]], {
          'x-amz-content-sha256': EMPTY_SHA256,
        });
      })();
      return aborting;
    },
  };
}

/** What every hand-off of a container shares (bucket.ts): its bucket, its means, its errors. */
export interface HandOffSettings extends Omit<ObjectLocation, 'key'> {
  /** Sends one S3 request within the time left before `deadlineAt`. */
  readonly send: (request: S3Request, deadlineAt: number) => Promise<S3Answer>;
  /** The ceiling: an answer over it ends the exchange with `errors.tooLarge`. */
  readonly maxBytes: number;
  /** The service's own errors, which this module cannot make itself. */
  readonly errors: {
    /** Over the ceiling: its declared size, when it declared one. */
    readonly tooLarge: (declaredBytes?: number) => Error;
    /** A failure of the upload, as the service reports it. */
    readonly failed: (cause: unknown) => Error;
  };
  /** How long the presigned URL is good for. */
  readonly urlSeconds: number;
  readonly partBytes?: number | undefined;
  readonly partsInFlight?: number | undefined;
  readonly now?: () => number;
}

/** One answer to hand off: the exchange's side, and what the object keeps. */
export interface HandOffRequest extends AnswerOpening {
  /** The function that stores it: its key's prefix (`<prefix>/<uuid>`). */
  readonly prefix: string;
  readonly contentType: string;
  /** Kept with the object, and answered with it (a report's attachment). */
  readonly contentDisposition?: string | undefined;
  /** Told once the answer is stored (the request line, the metrics). */
  readonly onStored?: (stored: StoredAnswer) => void;
}

/**
 * The sink of one answer: its bytes, in order, to the upload, the exchange paused while the
 * upload is busy and ended at the first failure; once whole, the object and its presigned URL.
 * An answer that declares more than the ceiling is refused before anything is sent.
 */
export function openUpload(settings: HandOffSettings, request: HandOffRequest): AnswerSink {
  const { errors, maxBytes } = settings;
  if (request.declaredBytes !== undefined && request.declaredBytes > maxBytes) {
    throw errors.tooLarge(request.declaredBytes);
  }
  const now = settings.now ?? Date.now;
  // Only what is needed is kept: not the request, which holds the bytes read before the store.
  const { deadlineAt, flow, fail, onStored } = request;
  const options: UploadOptions = {
    ...settings,
    key: `${request.prefix}/${randomUUID()}`,
    send: (s3Request) => settings.send(s3Request, deadlineAt),
    contentType: request.contentType,
    contentDisposition: request.contentDisposition,
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
  if (bytes > maxBytes) stop(errors.tooLarge());
  else pump();
  return {
    write(chunk) {
      if (stopped) return;
      bytes += chunk.length;
      if (bytes > maxBytes) return stop(errors.tooLarge());
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
        contentType: options.contentType,
        url: presignedGetUrl(options, settings.urlSeconds, new Date(signedAt)),
        expiresAt: new Date(signedAt + settings.urlSeconds * 1000),
      };
      onStored?.(answer);
      return answer;
    },
    abort: () => upload.abort(),
  };
}
