/**
 * Signature v2 of the platform gateway (seed spec, Authentication 1), pure: the clock and the
 * credentials are inputs, and every intermediate string is part of the result so that tests
 * can check each step against golden vectors.
 *
 *   StringToSign = METHOD + " " + URI + "\n" + timestamp + "\n" + accessKey
 *   signature    = base64(HMAC-SHA256(secretKey, StringToSign))
 *
 * URI is the path and query exactly as sent on the wire (already percent-encoded).
 */
import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';

interface IamCredentials {
  readonly accessKey: string;
  readonly secretKey: string;
}

interface SignInput {
  readonly method: string;
  /** Path and query string exactly as they go on the wire, e.g. `/api/v1/jobs?page=1&limit=10`. */
  readonly uri: string;
  /** Milliseconds since the epoch. */
  readonly timestampMs: number;
  readonly credentials: IamCredentials;
}

interface Signature {
  readonly timestamp: string;
  readonly stringToSign: string;
  readonly signature: string;
}

export function stringToSign(method: string, uri: string, timestamp: string, accessKey: string) {
  return `${method.toUpperCase()} ${uri}\n${timestamp}\n${accessKey}`;
}

export function signV2(input: SignInput): Signature {
  if (!input.uri.startsWith('/')) {
    throw new TypeError('The signed URI must be an absolute path, starting with "/"');
  }
  const timestamp = String(Math.trunc(input.timestampMs));
  const message = stringToSign(input.method, input.uri, timestamp, input.credentials.accessKey);
  const signature = createHmac('sha256', hmacKey(input.credentials.secretKey))
    .update(message, 'utf8')
    .digest('base64');
  return { timestamp, stringToSign: message, signature };
}

/** The last key used, prepared once: a container signs with one secret key until rotation. */
let lastKey: { secretKey: string; key: KeyObject } | undefined;

function hmacKey(secretKey: string): KeyObject {
  if (lastKey?.secretKey !== secretKey) {
    lastKey = { secretKey, key: createSecretKey(Buffer.from(secretKey, 'utf8')) };
  }
  return lastKey.key;
}

type GatewayHeaderNames = Readonly<{
  timestamp: string;
  accessKey: string;
  signature: string;
  apiKey: string;
  clientId: string;
}>;

/** Built once per vendor word: every signed call needs them. */
const headerNamesByVendor = new Map<string, GatewayHeaderNames>();

/** The gateway's header names for a vendor word (`platform` in the spec). */
export function gatewayHeaderNames(vendor: string): GatewayHeaderNames {
  let names = headerNamesByVendor.get(vendor);
  if (!names) {
    const v = vendor.toLowerCase();
    names = {
      timestamp: `x-${v}-apigw-timestamp`,
      accessKey: `x-${v}-iam-access-key`,
      signature: `x-${v}-apigw-signature-v2`,
      apiKey: `x-${v}-apigw-api-key`,
      clientId: `x-${v}-apigw-api-key-id`,
    };
    headerNamesByVendor.set(vendor, names);
  }
  return names;
}

/** The headers that carry a signature (plus the API key when the secret has one). */
export function signatureHeaders(
  vendor: string,
  signed: Signature,
  accessKey: string,
  apiKey?: string,
): Record<string, string> {
  const names = gatewayHeaderNames(vendor);
  const headers: Record<string, string> = {
    [names.timestamp]: signed.timestamp,
    [names.accessKey]: accessKey,
    [names.signature]: signed.signature,
  };
  if (apiKey) headers[names.apiKey] = apiKey;
  return headers;
}
