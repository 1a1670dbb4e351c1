/**
 * The hand-off bucket of local runs: a loopback stand-in of S3 for the few calls an answer's
 * hand-off makes (lib/hand-off/multipart-upload.ts) and the presigned GET its caller follows.
 * It checks what S3 checks: every request's Signature Version 4, with AWS's own signer
 * (`@smithy/signature-v4`), header-signed or presigned; a presigned URL's expiry (a URL without
 * its query, or past its time, is refused with 403 as S3 refuses it); each part's SHA-256
 * against its bytes; the smallest part but the last (5 MiB). Objects keep their Content-Type,
 * Content-Disposition, Cache-Control and user metadata (`x-amz-meta-*`), answered with them as S3
 * answers them, and go after a day, as the bucket's lifecycle rule deletes them.
 *
 * `npm start` runs one (scripts/start.ts), as do the e2e suites and the integration tests.
 * Path-style only: `http://127.0.0.1:<port>/<bucket>/<key>`.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignatureV4 } from '@smithy/signature-v4';
import { Sha256 } from './smithy-sha256.ts';

/** What an object keeps of the request that created it, and answers with. */
interface KeptHeaders {
  readonly contentType: string;
  /** Content-Disposition, Cache-Control and `x-amz-meta-*`, by lower-case name. */
  readonly served: Readonly<Record<string, string>>;
}

/** An object as stored: its parts' bytes in order, and what it keeps. */
interface StoredObject extends KeptHeaders {
  readonly parts: readonly Buffer[];
  readonly bytes: number;
  readonly etag: string;
  readonly storedAt: number;
}

interface Upload extends KeptHeaders {
  readonly key: string;
  readonly parts: Map<number, { readonly body: Buffer; readonly etag: string }>;
}

/** The headers of a create that S3 keeps with the object and answers a GET with. */
function keptHeadersOf(req: IncomingMessage): KeptHeaders {
  const served: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    if (
      name === 'content-disposition' ||
      name === 'cache-control' ||
      name.startsWith('x-amz-meta-')
    ) {
      served[name] = String(value);
    }
  }
  return { contentType: String(req.headers['content-type'] ?? 'binary/octet-stream'), served };
}

export interface S3StandInOptions {
  /** The one bucket it keeps. */
  readonly bucket: string;
  /** Access key id to secret access key: whom it takes signatures from. */
  readonly credentials: Readonly<Record<string, string>>;
  /** 0 (the default): a free port. */
  readonly port?: number;
  /** Its clock (ms since the epoch); default Date.now. */
  readonly now?: () => number;
}

export interface S3StandIn {
  /** `http://127.0.0.1:<port>`: AWS_ENDPOINT_URL_S3 of the functions. */
  readonly endpoint: string;
  readonly port: number;
  /** The objects by key. */
  readonly objects: ReadonlyMap<string, StoredObject>;
  /** Multipart uploads begun and neither completed nor aborted. */
  readonly uploadsInProgress: () => number;
  /** Every request received: method, path and query, and the status answered. */
  readonly requests: readonly { method: string; url: string; status: number }[];
  /** Forgets every object, upload and request. */
  reset(): void;
  close(): Promise<void>;
}

const MIB = 1024 * 1024;
/** S3's smallest part but the last. */
const MIN_PART_BYTES = 5 * MIB;
/** A presigned URL lives a week at most. */
const MAX_EXPIRES_SECONDS = 604_800;
/** A signed request's time may be 15 minutes off. */
const MAX_SKEW_MS = 15 * 60 * 1000;
/** The bucket's lifecycle rule: objects go after a day. */
const OBJECT_LIFETIME_MS = 24 * 60 * 60 * 1000;
/** The largest body it reads: a part (S3 allows 5 GiB; the hand-off sends 8 MiB). */
const MAX_REQUEST_BYTES = 64 * MIB;

/** A refusal as S3 words it. */
class S3Refusal extends Error {
  readonly status: number;
  readonly code: string;

  constructor(status: number, code: string, message: string) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

const xml = (body: string) => `<?xml version="1.0" encoding="UTF-8"?>\n${body}`;
const escapeXml = (text: string) => text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** `20150830T123600Z` as a Date. */
function parseAmzDate(text: string | undefined): Date | undefined {
  const match = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(text ?? '');
  if (!match) return undefined;
  const [, y, mo, d, h, mi, s] = match;
  return new Date(`${y}-${mo}-${d}T${h}:${mi}:${s}Z`);
}

function signerFor(region: string, accessKeyId: string, secretAccessKey: string, token?: string) {
  return new SignatureV4({
    service: 's3',
    region,
    credentials: { accessKeyId, secretAccessKey, sessionToken: token },
    sha256: Sha256,
    uriEscapePath: false,
    applyChecksum: false,
  });
}

/** The query's parameters as AWS's signer takes them (one value a name), but those left out. */
function queryOf(url: URL, leaveOut: (name: string) => boolean): Record<string, string> {
  const query: Record<string, string> = {};
  for (const [name, value] of url.searchParams) if (!leaveOut(name)) query[name] = value;
  return query;
}

export async function startS3StandIn(options: S3StandInOptions): Promise<S3StandIn> {
  const now = options.now ?? Date.now;
  const objects = new Map<string, StoredObject>();
  const uploads = new Map<string, Upload>();
  const requests: { method: string; url: string; status: number }[] = [];
  let uploadCount = 0;

  /** The secret of a credential's access key, or the refusal S3 gives an unknown one. */
  const secretOf = (accessKeyId: string): string => {
    const secret = options.credentials[accessKeyId];
    if (secret === undefined) {
      throw new S3Refusal(
        403,
        'InvalidAccessKeyId',
        'The AWS Access Key Id you provided does not exist in our records.',
      );
    }
    return secret;
  };

  /** A header-signed request: its signature, its time, its payload's hash. */
  const checkSigned = async (req: IncomingMessage, url: URL, body: Buffer) => {
    const authorization = String(req.headers.authorization ?? '');
    const match =
      /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/s3\/aws4_request, ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})$/.exec(
        authorization,
      );
    if (!match) {
      throw new S3Refusal(403, 'AccessDenied', 'Access Denied (no valid Authorization header)');
    }
    const [, accessKeyId = '', , region = '', signedHeaders = '', signature] = match;
    const signingDate = parseAmzDate(String(req.headers['x-amz-date'] ?? ''));
    if (!signingDate) throw new S3Refusal(403, 'AccessDenied', 'No valid x-amz-date');
    if (Math.abs(now() - signingDate.getTime()) > MAX_SKEW_MS) {
      throw new S3Refusal(
        403,
        'RequestTimeTooSkewed',
        'The difference between the request time and the current time is too large.',
      );
    }
    const payloadHash = String(req.headers['x-amz-content-sha256'] ?? '');
    if (!payloadHash) throw new S3Refusal(400, 'InvalidRequest', 'Missing x-amz-content-sha256');
    if (
      payloadHash !== 'UNSIGNED-PAYLOAD' &&
      payloadHash !== createHash('sha256').update(body).digest('hex')
    ) {
      throw new S3Refusal(
        400,
        'XAmzContentSHA256Mismatch',
        "The provided 'x-amz-content-sha256' header does not match what was computed.",
      );
    }
    const headers: Record<string, string> = {};
    for (const name of signedHeaders.split(';')) headers[name] = String(req.headers[name] ?? '');
    const token = req.headers['x-amz-security-token'];
    const signed = await signerFor(
      region,
      accessKeyId,
      secretOf(accessKeyId),
      token ? String(token) : undefined,
    ).sign(
      {
        method: req.method ?? 'GET',
        protocol: 'http:',
        hostname: url.hostname,
        port: Number(url.port) || undefined,
        path: url.pathname,
        query: queryOf(url, () => false),
        headers,
      },
      { signingDate },
    );
    const expected = /Signature=([0-9a-f]{64})/.exec(String(signed.headers.authorization))?.[1];
    if (expected !== signature) {
      throw new S3Refusal(
        403,
        'SignatureDoesNotMatch',
        'The request signature we calculated does not match the signature you provided.',
      );
    }
  };

  /** A presigned URL: its signature and its time. No query at all is no access at all. */
  const checkPresigned = async (req: IncomingMessage, url: URL) => {
    const query = url.searchParams;
    if (!query.has('X-Amz-Signature')) {
      if (req.headers.authorization) return checkSigned(req, url, Buffer.alloc(0));
      throw new S3Refusal(403, 'AccessDenied', 'Access Denied');
    }
    const credential = /^([^/]+)\/(\d{8})\/([^/]+)\/s3\/aws4_request$/.exec(
      query.get('X-Amz-Credential') ?? '',
    );
    const signingDate = parseAmzDate(query.get('X-Amz-Date') ?? undefined);
    const expires = Number(query.get('X-Amz-Expires'));
    if (
      !credential ||
      !signingDate ||
      !Number.isInteger(expires) ||
      query.get('X-Amz-Algorithm') !== 'AWS4-HMAC-SHA256'
    ) {
      throw new S3Refusal(
        400,
        'AuthorizationQueryParametersError',
        'The query parameters of the presigned URL are malformed.',
      );
    }
    if (expires < 1 || expires > MAX_EXPIRES_SECONDS) {
      throw new S3Refusal(
        400,
        'AuthorizationQueryParametersError',
        'X-Amz-Expires must be between 1 and 604800 seconds.',
      );
    }
    if (now() > signingDate.getTime() + expires * 1000) {
      throw new S3Refusal(403, 'AccessDenied', 'Request has expired');
    }
    if (signingDate.getTime() - now() > MAX_SKEW_MS) {
      throw new S3Refusal(403, 'AccessDenied', 'Request is not valid yet');
    }
    const [, accessKeyId = '', , region = ''] = credential;
    const token = query.get('X-Amz-Security-Token') ?? undefined;
    const presigned = await signerFor(region, accessKeyId, secretOf(accessKeyId), token).presign(
      {
        method: req.method ?? 'GET',
        protocol: 'http:',
        hostname: url.hostname,
        port: Number(url.port) || undefined,
        path: url.pathname,
        query: queryOf(url, (name) => name.startsWith('X-Amz-')),
        // As AWS's S3 presigner signs: the host, and not the payload.
        headers: { host: String(req.headers.host), 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' },
      },
      {
        signingDate,
        expiresIn: expires,
        unhoistableHeaders: new Set(['x-amz-content-sha256']),
        unsignableHeaders: new Set(['x-amz-content-sha256']),
      },
    );
    if (presigned.query?.['X-Amz-Signature'] !== query.get('X-Amz-Signature')) {
      throw new S3Refusal(
        403,
        'SignatureDoesNotMatch',
        'The request signature we calculated does not match the signature you provided.',
      );
    }
  };

  const objectOf = (key: string): StoredObject => {
    const object = objects.get(key);
    if (!object || now() - object.storedAt > OBJECT_LIFETIME_MS) {
      objects.delete(key);
      throw new S3Refusal(404, 'NoSuchKey', 'The specified key does not exist.');
    }
    return object;
  };

  const uploadOf = (url: URL, key: string): [string, Upload] => {
    const id = url.searchParams.get('uploadId') ?? '';
    const upload = uploads.get(id);
    if (!upload || upload.key !== key) {
      throw new S3Refusal(404, 'NoSuchUpload', 'The specified multipart upload does not exist.');
    }
    return [id, upload];
  };

  const handle = async (req: IncomingMessage, res: ServerResponse, body: Buffer) => {
    const url = new URL(req.url ?? '/', `http://${req.headers.host ?? '127.0.0.1'}`);
    const [, bucket = '', ...rest] = url.pathname.split('/');
    const key = rest.map(decodeURIComponent).join('/');
    if (decodeURIComponent(bucket) !== options.bucket) {
      throw new S3Refusal(404, 'NoSuchBucket', 'The specified bucket does not exist');
    }
    const method = req.method ?? 'GET';
    if (method === 'GET' || method === 'HEAD') {
      await checkPresigned(req, url);
      const object = objectOf(key);
      res.writeHead(200, {
        ...object.served,
        'content-type': object.contentType,
        'content-length': object.bytes,
        etag: object.etag,
      });
      if (method === 'HEAD') return res.end();
      for (const part of object.parts) {
        if (!res.write(part)) await new Promise((resolve) => res.once('drain', resolve));
      }
      return res.end();
    }
    await checkSigned(req, url, body);
    if (method === 'POST' && url.searchParams.has('uploads')) {
      const id = `upload-${++uploadCount}-${createHash('sha256').update(`${key}${now()}${Math.random()}`).digest('hex').slice(0, 24)}`;
      uploads.set(id, { key, ...keptHeadersOf(req), parts: new Map() });
      res.writeHead(200, { 'content-type': 'application/xml' });
      return res.end(
        xml(
          `<InitiateMultipartUploadResult><Bucket>${escapeXml(options.bucket)}</Bucket><Key>${escapeXml(key)}</Key><UploadId>${id}</UploadId></InitiateMultipartUploadResult>`,
        ),
      );
    }
    if (method === 'PUT' && url.searchParams.has('uploadId')) {
      const [, upload] = uploadOf(url, key);
      const number = Number(url.searchParams.get('partNumber'));
      if (!Number.isInteger(number) || number < 1 || number > 10_000) {
        throw new S3Refusal(
          400,
          'InvalidArgument',
          'Part number must be an integer between 1 and 10000, inclusive',
        );
      }
      const etag = `"${createHash('md5').update(body).digest('hex')}"`;
      upload.parts.set(number, { body, etag });
      res.writeHead(200, { etag });
      return res.end();
    }
    if (method === 'POST' && url.searchParams.has('uploadId')) {
      const [id, upload] = uploadOf(url, key);
      // Each <Part> names its number and ETag, in either order.
      const listed = [...body.toString('utf8').matchAll(/<Part>([\s\S]*?)<\/Part>/g)].map(
        ([, part = '']) => ({
          number: Number(/<PartNumber>(\d+)<\/PartNumber>/.exec(part)?.[1]),
          etag: (/<ETag>([^<]+)<\/ETag>/.exec(part)?.[1] ?? '').replace(/&quot;|&#34;/g, '"'),
        }),
      );
      if (listed.length === 0)
        throw new S3Refusal(400, 'MalformedXML', 'The XML you provided was not well-formed.');
      const parts: Buffer[] = [];
      for (const [index, { number, etag }] of listed.entries()) {
        const part = upload.parts.get(number);
        if (!part || part.etag !== etag) {
          throw new S3Refusal(
            400,
            'InvalidPart',
            'One or more of the specified parts could not be found.',
          );
        }
        if (index > 0 && number <= (listed[index - 1]?.number ?? 0)) {
          throw new S3Refusal(
            400,
            'InvalidPartOrder',
            'The list of parts was not in ascending order.',
          );
        }
        if (index < listed.length - 1 && part.body.length < MIN_PART_BYTES) {
          throw new S3Refusal(
            400,
            'EntityTooSmall',
            'Your proposed upload is smaller than the minimum allowed object size.',
          );
        }
        parts.push(part.body);
      }
      uploads.delete(id);
      const etag = `"${createHash('md5')
        .update(listed.map((part) => part.etag).join(''))
        .digest('hex')}-${parts.length}"`;
      objects.set(key, {
        parts,
        bytes: parts.reduce((sum, part) => sum + part.length, 0),
        contentType: upload.contentType,
        served: upload.served,
        etag,
        storedAt: now(),
      });
      res.writeHead(200, { 'content-type': 'application/xml' });
      return res.end(
        xml(
          `<CompleteMultipartUploadResult><Bucket>${escapeXml(options.bucket)}</Bucket><Key>${escapeXml(key)}</Key><ETag>${etag}</ETag></CompleteMultipartUploadResult>`,
        ),
      );
    }
    if (method === 'DELETE' && url.searchParams.has('uploadId')) {
      const [id] = uploadOf(url, key);
      uploads.delete(id);
      res.writeHead(204);
      return res.end();
    }
    throw new S3Refusal(501, 'NotImplemented', 'The stand-in does not implement this call.');
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_REQUEST_BYTES) chunks.push(chunk);
    });
    req.on('end', () => {
      const answered = (status: number) =>
        requests.push({ method: req.method ?? '', url: req.url ?? '', status });
      const body = Buffer.concat(chunks);
      handle(req, res, body).then(
        () => answered(res.statusCode),
        (error: unknown) => {
          const refusal =
            error instanceof S3Refusal
              ? error
              : new S3Refusal(
                  500,
                  'InternalError',
                  error instanceof Error ? error.message : String(error),
                );
          answered(refusal.status);
          if (res.headersSent) return res.destroy();
          res.writeHead(refusal.status, { 'content-type': 'application/xml' });
          res.end(
            req.method === 'HEAD'
              ? undefined
              : xml(
                  `<Error><Code>${refusal.code}</Code><Message>${escapeXml(refusal.message)}</Message></Error>`,
                ),
          );
        },
      );
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    port,
    objects,
    uploadsInProgress: () => uploads.size,
    requests,
    reset: () => {
      objects.clear();
      uploads.clear();
      requests.length = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The bucket local runs hand answers off to. */
const LOCAL_HAND_OFF_BUCKET = 'platform-gateway-local-hand-off';

export interface LocalHandOff {
  readonly standIn: S3StandIn;
  /** What the functions need: the bucket, and where S3 answers. */
  readonly env: Record<string, string>;
}

/**
 * The hand-off bucket of a local run (npm start, the e2e suites): the stand-in, taking the
 * signatures of the credentials the functions are given (`AWS_ACCESS_KEY_ID` of `env`), on
 * `port` (0: a free one).
 */
export async function startLocalHandOff(env: NodeJS.ProcessEnv, port = 0): Promise<LocalHandOff> {
  const { AWS_ACCESS_KEY_ID: accessKeyId, AWS_SECRET_ACCESS_KEY: secret } = env;
  if (!accessKeyId || !secret) {
    throw new Error('the hand-off bucket needs the credentials the functions sign with');
  }
  const standIn = await startS3StandIn({
    bucket: LOCAL_HAND_OFF_BUCKET,
    credentials: { [accessKeyId]: secret },
    port,
  });
  return {
    standIn,
    env: { HAND_OFF_BUCKET: LOCAL_HAND_OFF_BUCKET, AWS_ENDPOINT_URL_S3: standIn.endpoint },
  };
}
