/**
 * Signature v2 of the platform gateway, pure: the clock and the
 * credentials are inputs, and every intermediate string is part of the result so that tests
 * can check each step against golden vectors.
 *
 *   StringToSign = METHOD + " " + URI + "\n" + timestamp + "\n" + accessKey
 *   signature    = base64(HMAC-SHA256(secretKey, StringToSign))
 *
 * URI is the path and query exactly as sent on the wire (already percent-encoded).
 */
import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';

export interface IamCredentials {
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

export interface Signature {
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
