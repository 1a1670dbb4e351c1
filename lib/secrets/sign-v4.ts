/**
 * AWS Signature Version 4, for the few AWS requests the package sends without the SDK: the one
 * GetSecretValue call of the default deploy (get-secret-value.ts), and the hand-off of answers
 * too large for a Lambda response (lib/hand-off/s3-multipart.ts: S3's multipart calls, and
 * the presigned GET URL the caller is sent to). Every header given is signed, with `host`,
 * `x-amz-date` and, for temporary credentials, `x-amz-security-token`. The steps are AWS's own,
 * and a test holds the result to AWS's published example and to the signatures the `aws4`
 * library and AWS's own signer (`@smithy/signature-v4`) give the same request:
 * https://docs.aws.amazon.com/IAM/latest/UserGuide/create-signed-request.html
 *
 * Written here rather than loaded: a general signer (its LRU cache, its request rewriting)
 * costs about 8 KB of every HTTP function's bundle, this one about 1.5 KB; the presigning part
 * is only in the file a hand-off loads.
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

/** A request to S3, as the hand-off sends them: a query, and the payload's hash given. */
export interface S3RequestToSign extends Omit<RequestToSign, 'body' | 'service'> {
  /**
   * The path as sent: S3 signs it as it is, so each segment must already be encoded as RFC 3986
   * says (letters, digits, `-._~` as they are).
   */
  readonly path: string;
  /** The query's parameters, not encoded; sent as canonicalQuery gives them. */
  readonly query: readonly (readonly [string, string])[];
  /** The hex SHA-256 of the body, which S3 checks against the bytes it receives. */
  readonly payloadHash: string;
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

/** RFC 3986's unreserved characters stay; everything else is %-encoded (UTF-8). */
export function encodeRfc3986(text: string): string {
  return encodeURIComponent(text).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

/**
 * The signature of a canonical request (its path and query already canonical; `headers` the
 * signed ones, names in lower case): the steps a signed request and a presigned URL share.
 */
function signatureOf(
  method: string,
  path: string,
  query: string,
  headers: Readonly<Record<string, string>>,
  payloadHash: string,
  scope: string,
  amzDate: string,
  secret: string,
): { readonly signature: string; readonly signedHeaders: string } {
  const names = Object.keys(headers).sort();
  const signedHeaders = names.join(';');
  const canonicalRequest = [
    method,
    path,
    query,
    ...names.map((name) => `${name}:${String(headers[name]).trim().replace(/\s+/g, ' ')}`),
    '',
    signedHeaders,
    payloadHash,
  ].join('\n');
  const stringToSign = [ALGORITHM, amzDate, scope, sha256Hex(canonicalRequest)].join('\n');
  const signature = createHmac('sha256', signingKey(secret, scope))
    .update(stringToSign, 'utf8')
    .digest('hex');
  return { signature, signedHeaders };
}

/** The headers to send: those given, `host`, `x-amz-date`, the session token, `authorization`. */
function sign(
  request: Omit<RequestToSign, 'path' | 'body'>,
  path: string,
  query: string,
  payloadHash: string,
  credentials: SigningCredentials,
  now: Date,
): Record<string, string> {
  const amzDate = now.toISOString().replace(/[:-]|\.\d{3}/g, '');
  const scope = `${amzDate.slice(0, 8)}/${request.region}/${request.service}/aws4_request`;
  const headers: Record<string, string> = {
    ...request.headers,
    host: request.host,
    'x-amz-date': amzDate,
  };
  if (credentials.sessionToken) headers['x-amz-security-token'] = credentials.sessionToken;
  const { signature, signedHeaders } = signatureOf(
    request.method,
    path,
    query,
    headers,
    payloadHash,
    scope,
    amzDate,
    credentials.secretAccessKey,
  );
  headers.authorization = `${ALGORITHM} Credential=${credentials.accessKeyId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`;
  return headers;
}

/**
 * A request of a JSON API (Secrets Manager), signed. Its canonical path is the path as sent
 * with repeated slashes as one, each segment encoded again (a URL's pathname is encoded once).
 */
export function signV4(
  request: RequestToSign,
  credentials: SigningCredentials,
  now: Date = new Date(),
): Record<string, string> {
  const path = request.path
    .replace(/\/{2,}/g, '/')
    .split('/')
    .map(encodeRfc3986)
    .join('/');
  return sign(request, path, '', sha256Hex(request.body), credentials, now);
}

/** The query's parameters encoded, sorted by name then value: as signed, and as sent. */
export function canonicalQuery(query: readonly (readonly [string, string])[]): string {
  return query
    .map(([name, value]) => [encodeRfc3986(name), encodeRfc3986(value)] as const)
    .sort(([a, x], [b, y]) => (a === b ? (x < y ? -1 : x > y ? 1 : 0) : a < b ? -1 : 1))
    .map(([name, value]) => `${name}=${value}`)
    .join('&');
}

/** A request to S3, signed: its path and query as they are sent. */
export function signS3(
  request: S3RequestToSign,
  credentials: SigningCredentials,
  now: Date = new Date(),
): Record<string, string> {
  return sign(
    { ...request, service: 's3' },
    request.path,
    canonicalQuery(request.query),
    request.payloadHash,
    credentials,
    now,
  );
}

/**
 * A presigned S3 URL's query string (query-string authentication): the signature's parameters,
 * good for `expiresSeconds` from `now`. Only `host` is signed, and not the payload: whoever holds
 * the URL may send that one request until it expires, and nothing else.
 * https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-query-string-auth.html
 */
export function presignS3(
  request: Pick<S3RequestToSign, 'method' | 'host' | 'path' | 'region'>,
  credentials: SigningCredentials,
  expiresSeconds: number,
  now: Date = new Date(),
): string {
  const amzDate = now.toISOString().replace(/[:-]|\.\d{3}/g, '');
  const scope = `${amzDate.slice(0, 8)}/${request.region}/s3/aws4_request`;
  const query: (readonly [string, string])[] = [
    ['X-Amz-Algorithm', ALGORITHM],
    ['X-Amz-Credential', `${credentials.accessKeyId}/${scope}`],
    ['X-Amz-Date', amzDate],
    ['X-Amz-Expires', String(expiresSeconds)],
    ['X-Amz-SignedHeaders', 'host'],
  ];
  if (credentials.sessionToken) query.push(['X-Amz-Security-Token', credentials.sessionToken]);
  const signed = canonicalQuery(query);
  const { signature } = signatureOf(
    request.method,
    request.path,
    signed,
    { host: request.host },
    'UNSIGNED-PAYLOAD',
    scope,
    amzDate,
    credentials.secretAccessKey,
  );
  return `${signed}&X-Amz-Signature=${signature}`;
}
