/**
 * The hand-off bucket (lib/hand-off/bucket.ts) behind the upstream client, as a route that hands
 * off uses it: an answer too large to return is stored as it arrives in a loopback S3 that checks
 * every signature (scripts/local/s3-stand-in.ts), byte for byte, and its presigned URL fetches it;
 * one over the ceiling, or one the bucket refuses, fails the call with nothing stored; one under
 * the limit never reaches the bucket.
 */
import { createHash } from 'node:crypto';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type ServiceError, UpstreamResponseTooLargeError } from '../../../../lib/core/errors.ts';
import { HandOffBucket } from '../../../../lib/hand-off/bucket.ts';
import { answerTaker } from '../../../../lib/hand-off/taker.ts';
import { fitsResponse, readLimitOf } from '../../../../lib/http/responses.ts';
import { UpstreamClient } from '../../../../lib/upstream/client.ts';
import { type S3StandIn, startS3StandIn } from '../../../../scripts/local/s3-stand-in.ts';
import { testCall } from '../../../helpers/call-context.ts';
import { type ScriptedServer, startScriptedServer } from '../../../helpers/scripted-server.ts';

const MB = 1024 * 1024;
const BUCKET = 'hand-off-test';
const CREDENTIALS = { accessKeyId: 'AKIDHANDOFFTEST', secretAccessKey: 'hand-off-secret' };

/** Bytes that differ from one offset to the next, so that a part out of place shows. */
function bodyOf(size: number, seed = 1): Buffer {
  const body = Buffer.alloc(size);
  let x = seed;
  for (let i = 0; i < size; i += 4) {
    x = (x * 1103515245 + 12345) >>> 0;
    body.writeUInt32LE(x, Math.min(i, size - 4));
  }
  return body;
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('base64');

let s3: S3StandIn;
let upstream: ScriptedServer;
const dispatcher = new Agent();

beforeAll(async () => {
  s3 = await startS3StandIn({
    bucket: BUCKET,
    credentials: { [CREDENTIALS.accessKeyId]: CREDENTIALS.secretAccessKey },
  });
  upstream = await startScriptedServer();
});
afterAll(async () => {
  await upstream.close();
  await s3.close();
  await dispatcher.close();
});
beforeEach(() => s3.reset());

function bucket(overrides: Partial<ConstructorParameters<typeof HandOffBucket>[0]> = {}) {
  return new HandOffBucket({
    bucket: BUCKET,
    region: 'us-east-1',
    endpoint: new URL(s3.endpoint),
    credentials: CREDENTIALS,
    maxBytes: 40 * MB,
    dispatcher,
    ...overrides,
  });
}

/** The upstream client's call with the bucket's hand-off, as a route that hands off makes it. */
function send(store: HandOffBucket, options: { method?: string; disposition?: string } = {}) {
  const call = testCall({ remainingMs: 20_000 });
  const handOff = answerTaker({
    readLimit: readLimitOf,
    fits: fitsResponse,
    open: (answer) =>
      store.open({
        ...answer,
        prefix: 'getJobReport',
        contentType: answer.headers['content-type'] ?? 'application/octet-stream',
        contentDisposition: options.disposition,
      }),
  });
  const client = new UpstreamClient({ dispatcher, timeoutMs: 15_000 });
  return client.send(
    { method: options.method ?? 'GET', url: new URL('/answer', upstream.url), service: 'test' },
    { ...call, handOff },
  );
}

/** Answers with `body`, chunked (no Content-Length) unless `declare`. */
function answerWith(body: Buffer, contentType: string, declare = false) {
  upstream.script = (_req, res) => {
    res.writeHead(200, {
      'content-type': contentType,
      ...(declare ? { 'content-length': body.length } : {}),
    });
    // In pieces, as a socket gives them.
    for (let offset = 0; offset < body.length; offset += 256 * 1024) {
      res.write(body.subarray(offset, offset + 256 * 1024));
    }
    res.end();
  };
}

async function fetchBytes(url: string) {
  const answer = await request(url, { dispatcher });
  return {
    status: answer.statusCode,
    headers: answer.headers,
    body: Buffer.from(await answer.body.arrayBuffer()),
  };
}

describe('HandOffBucket behind the upstream client', () => {
  it('stores an answer too large to return as it arrives, byte for byte, and its URL fetches it', async () => {
    const body = bodyOf(20 * MB);
    answerWith(body, 'audio/wav');

    const answer = await send(bucket());

    expect(answer.body.length).toBe(0);
    const stored = answer.stored;
    expect(stored).toMatchObject({
      bytes: body.length,
      sha256: sha256(body),
      contentType: 'audio/wav',
    });
    expect(stored?.key).toMatch(/^getJobReport\/[0-9a-f-]{36}$/);
    // Parts of 8 MiB, the last smaller: S3 refuses a smaller part but the last.
    const puts = s3.requests.filter((r) => r.method === 'PUT');
    expect(puts).toHaveLength(3);
    expect(s3.uploadsInProgress()).toBe(0);
    const fetched = await fetchBytes(stored?.url ?? '');
    expect(fetched.status).toBe(200);
    expect(fetched.headers['content-type']).toBe('audio/wav');
    expect(fetched.headers['content-disposition']).toBe('attachment');
    expect(fetched.headers['cache-control']).toBe('private, no-store');
    expect(sha256(fetched.body)).toBe(sha256(body));
    expect(stored?.expiresAt.getTime()).toBeGreaterThan(Date.now() + 14 * 60_000);
  });

  it('keeps a report as an attachment, and its declared length starts the store at once', async () => {
    const body = Buffer.from(`{"findings":"${'x'.repeat(7 * MB)}"}`);
    answerWith(body, 'application/json', true);

    const answer = await send(bucket(), { disposition: 'attachment; filename="report-7.json"' });

    const fetched = await fetchBytes(answer.stored?.url ?? '');
    expect(fetched.headers['content-disposition']).toBe('attachment; filename="report-7.json"');
    expect(fetched.headers['cache-control']).toBe('private, no-store');
    expect(fetched.body.equals(body)).toBe(true);
  });

  it.each(['text/html; charset=utf-8', 'image/svg+xml', 'application/xml', 'application/pdf'])(
    'serves an answer of %s as bytes to save, never to render: its type named beside',
    async (type) => {
      const body = Buffer.from(`<html><script>alert(1)</script>${'x'.repeat(7 * MB)}</html>`);
      answerWith(body, type);

      const answer = await send(bucket(), { disposition: 'inline' });

      // The 303's body names the platform's type; the object renders nothing on S3's origin.
      expect(answer.stored?.contentType).toBe(type);
      const fetched = await fetchBytes(answer.stored?.url ?? '');
      expect(fetched.headers['content-type']).toBe('application/octet-stream');
      expect(fetched.headers['content-disposition']).toBe('attachment');
      expect(fetched.headers['cache-control']).toBe('private, no-store');
      expect(fetched.headers['x-amz-meta-content-type']).toBe(type);
      expect(fetched.body.equals(body)).toBe(true);
    },
  );

  it('returns an answer that fits as it came, with nothing sent to the bucket', async () => {
    const body = bodyOf(3 * MB);
    answerWith(body, 'application/octet-stream');

    const answer = await send(bucket());

    expect(answer.stored).toBeUndefined();
    expect(answer.body.equals(body)).toBe(true);
    expect(s3.requests).toHaveLength(0);
  });

  it('stores text read whole that does not fit once escaped for the response', async () => {
    // 1.5 MB of control characters: each is six bytes (\u0001) in the response's JSON.
    const body = Buffer.alloc(1.5 * MB, 1);
    answerWith(body, 'text/plain');

    const answer = await send(bucket());

    expect(answer.stored?.bytes).toBe(body.length);
    expect(sha256((await fetchBytes(answer.stored?.url ?? '')).body)).toBe(sha256(body));
  });

  it('refuses an answer that declares more than the ceiling, having sent nothing to the bucket', async () => {
    answerWith(bodyOf(12 * MB), 'image/png', true);

    const failure = await send(bucket({ maxBytes: 10 * MB })).catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(UpstreamResponseTooLargeError);
    expect(failure).toMatchObject({ status: 502, code: '900', reason: 'hand-off-too-large' });
    expect((failure as ServiceError).details).toContain(`${12 * MB} bytes, over the ${10 * MB}`);
    expect(s3.requests).toHaveLength(0);
  });

  it('stops reading at the ceiling, aborts the upload, and stores nothing', async () => {
    answerWith(bodyOf(30 * MB), 'image/png');

    const failure = await send(bucket({ maxBytes: 20 * MB })).catch((error: unknown) => error);

    expect(failure).toMatchObject({ status: 502, code: '900', reason: 'hand-off-too-large' });
    expect((failure as ServiceError).details).toContain(`over ${20 * MB} bytes`);
    expect(s3.objects.size).toBe(0);
    expect(s3.uploadsInProgress()).toBe(0);
    expect(s3.requests.some((r) => r.method === 'DELETE' && r.status === 204)).toBe(true);
  });

  it('fails the call, sent once, when the bucket refuses the answer', async () => {
    answerWith(bodyOf(8 * MB), 'image/png');
    const before = upstream.received.length;

    const failure = await send(
      bucket({ credentials: { ...CREDENTIALS, secretAccessKey: 'not the secret' } }),
    ).catch((error: unknown) => error);

    expect(failure).toMatchObject({ status: 502, code: '900', reason: 'hand-off-failed' });
    expect((failure as Error).cause).toMatchObject({ code: 'SignatureDoesNotMatch' });
    expect(upstream.received.length - before).toBe(1);
    expect(s3.objects.size).toBe(0);
  });

  it('never hands off a HEAD answer, whose length is not a body', async () => {
    upstream.script = (_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': 50 * MB });
      res.end();
    };

    const answer = await send(bucket(), { method: 'HEAD' });

    expect(answer.stored).toBeUndefined();
    expect(answer.body.length).toBe(0);
    expect(s3.requests).toHaveLength(0);
  });
});
