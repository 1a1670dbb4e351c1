/**
 * S3's multipart upload, as one answer's upload makes it (multipart-upload.ts): the object
 * created, its parts sent as they fill (8 MiB, two in flight; `write` asks its caller to wait
 * beyond), each signed with its own SHA-256, which S3 checks against the bytes it receives, then
 * completed, or aborted so that nothing of it is kept; S3's own failures tried again while time
 * is left. The SHA-256 of the whole object is computed on the way. And the object's URL, and a
 * presigned GET of it. Requests go out through the `send` it is given.
 *
 * https://docs.aws.amazon.com/AmazonS3/latest/userguide/mpuoverview.html
 */
import { createHash, type Hash } from 'node:crypto';
import {
  canonicalQuery,
  encodeRfc3986,
  presignS3,
  type SigningCredentials,
  signS3,
} from '../secrets/sign-v4.ts';

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
type SendToS3 = (request: S3Request) => Promise<S3Answer>;

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
  readonly cacheControl?: string | undefined;
  /** User metadata, kept with the object and answered as `x-amz-meta-<name>` headers. */
  readonly metadata?: Readonly<Record<string, string>> | undefined;
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
class S3RequestError extends Error {
  override name = 'S3RequestError';
  readonly operation: string;
  readonly status: number;
  readonly code: string;

  constructor(operation: string, status: number, code: string) {
    super(`S3 ${operation} answered ${status} ${code}`);
    this.operation = operation;
    this.status = status;
    this.code = code;
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
    unsigned: Readonly<Record<string, string>> = {},
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
        answer = await options.send({
          method,
          url: target,
          headers: { ...signed, ...unsigned },
          body,
        });
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
    for (const [name, value] of Object.entries(options.metadata ?? {})) {
      headers[`x-amz-meta-${name.toLowerCase()}`] = value;
    }
    // Sent unsigned, as AWS's own SDKs send it: their signers never sign Cache-Control.
    const unsigned: Record<string, string> = {};
    if (options.cacheControl) unsigned['cache-control'] = options.cacheControl;
    const answer = await request(
      'CreateMultipartUpload',
      'POST',
      [['uploads', '']],
      headers,
      undefined,
      unsigned,
    );
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
