/**
 * S3 requests of the hand-off's upload (lib/hand-off/s3-multipart.ts) sent over undici, as
 * `send` sends them: each recorded, and each answer held back `delayMs` when asked.
 */
import { type Agent, request } from 'undici';
import type { S3Answer, S3Request } from '../../lib/hand-off/s3-multipart.js';

export function s3Sender(dispatcher: Agent, sent: S3Request[] = [], delayMs = 0) {
  return async (s3Request: S3Request): Promise<S3Answer> => {
    sent.push(s3Request);
    const answer = await request(s3Request.url, {
      dispatcher,
      method: s3Request.method,
      headers: s3Request.headers,
      body:
        s3Request.body === undefined
          ? undefined
          : Buffer.concat([s3Request.body].flat().map((b) => Buffer.from(b))),
    });
    const body = Buffer.from(await answer.body.arrayBuffer());
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
    return { status: answer.statusCode, headers: answer.headers as Record<string, string>, body };
  };
}
