/**
 * AWS Signature Version 4 for one request with its whole body at hand, as the one GetSecretValue
 * call of the default deploy needs it (get-secret-value.ts): every header given is signed, with
 * `host`, `x-amz-date` and, for temporary credentials, `x-amz-security-token`; no query string.
 * The steps are AWS's own, and a test holds the result to AWS's published example and to the
 * `aws4` library's signature for the same request:
 * https://docs.aws.amazon.com/IAM/latest/UserGuide/create-signed-request.html
 *
 * Written here rather than loaded: a general signer (query strings, S3's rules, presigned URLs)
 * costs about 8 KB of every HTTP function's bundle, this one about 1 KB.
 */
import { createHash, createHmac } from 'node:crypto';

export interface SigningCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string | undefined;
}

export interface RequestToSign {
  readonly method: string;
  readonly host: string;
  /** The path as sent (a URL's pathname: `.` and `..` resolved), `/` at least; no query. */
  readonly path: string;
  readonly service: string;
  readonly region: string;
  readonly body: string;
  /** Headers to sign and send, their names in lower case. */
  readonly headers: Readonly<Record<string, string>>;
}

const ALGORITHM = 'AWS4-HMAC-SHA256';

/** The signing key depends on the day, region and service only: one derivation a day. */
let lastKey: { readonly scope: string; readonly secret: string; readonly key: Buffer } | undefined;

function hmac(key: string | Buffer, text: string): Buffer {
  return createHmac('sha256', key).update(text, 'utf8').digest();
}

function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

function signingKey(secret: string, scope: string): Buffer {
  if (lastKey?.scope === scope && lastKey.secret === secret) return lastKey.key;
  const [date = '', region = '', service = ''] = scope.split('/');
  const key = hmac(hmac(hmac(hmac(`AWS4${secret}`, date), region), service), 'aws4_request');
  lastKey = { scope, secret, key };
  return key;
}

/** RFC 3986's unreserved characters stay; everything else of a path segment is %-encoded. */
function encodeSegment(segment: string): string {
  return encodeURIComponent(segment).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

/**
 * The canonical path of a service other than S3: the path as sent (its segments already
 * encoded once, as a URL's pathname is), repeated slashes as one, each segment encoded again.
 */
function canonicalPath(path: string): string {
  return path
    .replace(/\/{2,}/g, '/')
    .split('/')
    .map(encodeSegment)
    .join('/');
}

/** The headers to send: those given, `host`, `x-amz-date`, the session token, `authorization`. */
export function signV4(
  request: RequestToSign,
  credentials: SigningCredentials,
  now: Date = new Date(),
): Record<string, string> {
  const amzDate = now.toISOString().replace(/[:-]|\.\d{3}/g, '');
  const scope = `${amzDate.slice(0, 8)}/${request.region}/${request.service}/aws4_request`;
  const headers: Record<string, string> = {
    ...request.headers,
    host: request.host,
    'x-amz-date': amzDate,
  };
  if (credentials.sessionToken) headers['x-amz-security-token'] = credentials.sessionToken;
  const names = Object.keys(headers).sort();
  const signedHeaders = names.join(';');
  const canonicalRequest = [
    request.method,
    canonicalPath(request.path),
    '',
    ...names.map((name) => `${name}:${String(headers[name]).trim().replace(/\s+/g, ' ')}`),
    '',
    signedHeaders,
    sha256Hex(request.body),
  ].join('\n');
  const stringToSign = [ALGORITHM, amzDate, scope, sha256Hex(canonicalRequest)].join('\n');
  const signature = createHmac('sha256', signingKey(credentials.secretAccessKey, scope))
    .update(stringToSign, 'utf8')
    .digest('hex');
  headers.authorization = `${ALGORITHM} Credential=${credentials.accessKeyId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`;
  return headers;
}
