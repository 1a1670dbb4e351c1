import { createHash, timingSafeEqual } from 'node:crypto';

function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/**
 * Compares two secrets in constant time. Hashing both sides first gives equal lengths, so not
 * even the length of a wrong guess leaks.
 */
export function constantTimeEqual(a: string, b: string): boolean {
  return timingSafeEqual(sha256(a), sha256(b));
}
