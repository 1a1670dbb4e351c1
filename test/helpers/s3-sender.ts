/**
 * S3 requests of the hand-off's upload (lib/hand-off/s3-multipart.ts) sent over undici, as
 * `send` sends them: each recorded, and each answer held back `delayMs` when asked.
 */
import { Agent, request } from 'undici';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import type { S3Answer, S3Request } from '../../lib/hand-off/s3-multipart.ts';
import { type S3StandIn, startS3StandIn } from '../../scripts/local/s3-stand-in.ts';

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

/**
 * A suite's loopback S3 (scripts/local/s3-stand-in.ts): started before its tests with one
 * bucket and one access key, emptied before each test, closed after them with its dispatcher.
 */
export function s3StandInForSuite() {
  const bucket = 'upload-test';
  const credentials = { accessKeyId: 'AKIDUPLOADTEST', secretAccessKey: 'upload-secret' };
  const dispatcher = new Agent();
  let standIn: S3StandIn | undefined;
  beforeAll(async () => {
    standIn = await startS3StandIn({
      bucket,
      credentials: { [credentials.accessKeyId]: credentials.secretAccessKey },
    });
  });
  afterAll(async () => {
    await standIn?.close();
    await dispatcher.close();
  });
  beforeEach(() => standIn?.reset());
  return { bucket, credentials, dispatcher, standIn: () => standIn! };
}
