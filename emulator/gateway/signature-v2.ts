import { createHmac } from 'node:crypto';
import { constantTimeEqual } from './constant-time.ts';

/** The parts of a request that signature v2 covers. */
export interface SignedParts {
  readonly method: string;
  /** Path and query string exactly as sent on the wire. */
  readonly uri: string;
  /** Milliseconds since the epoch, as the decimal string sent in the timestamp header. */
  readonly timestamp: string;
  readonly accessKey: string;
}

/** METHOD, one space, URI, newline, timestamp, newline, access key; no trailing newline. */
export function stringToSign(parts: SignedParts): string {
  return `${parts.method} ${parts.uri}\n${parts.timestamp}\n${parts.accessKey}`;
}

/** Base64 of HMAC-SHA256 over the UTF-8 string to sign, keyed with the UTF-8 secret key. */
export function signatureV2(parts: SignedParts, secretKey: string): string {
  return createHmac('sha256', Buffer.from(secretKey, 'utf8'))
    .update(stringToSign(parts), 'utf8')
    .digest('base64');
}

/** Whether `signature` is the v2 signature of `parts`, compared in constant time. */
export function verifySignatureV2(
  parts: SignedParts,
  secretKey: string,
  signature: string,
): boolean {
  return constantTimeEqual(signatureV2(parts, secretKey), signature);
}
