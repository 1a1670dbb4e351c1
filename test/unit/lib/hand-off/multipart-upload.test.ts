/**
 * The upload of one answer (lib/hand-off/multipart-upload.ts), the module a hand-off loads: the
 * multipart calls against a loopback S3 that checks each signature and part
 * (scripts/local/s3-stand-in.ts), the exchange held while two parts are in flight, S3's own
 * failures tried again and its refusals reported through the service's errors, an abort that
 * leaves nothing, and a presigned URL that fetches one object until it expires.
 */
import { createHash } from 'node:crypto';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  type HandOffSettings,
  objectUrl,
  openUpload,
  presignedGetUrl,
  type S3Answer,
  type S3Request,
  startUpload,
} from '../../../../lib/hand-off/multipart-upload.js';
import { type S3StandIn, startS3StandIn } from '../../../../scripts/local/s3-stand-in.js';
import { startScriptedServer } from '../../../helpers/scripted-server.js';

const MB = 1024 * 1024;
const BUCKET = 'upload-test';
const CREDENTIALS = { accessKeyId: 'AKIDUPLOADTEST', secretAccessKey: 'upload-secret' };
const dispatcher = new Agent();

let s3: S3StandIn;
beforeAll(async () => {
  s3 = await startS3StandIn({
    bucket: BUCKET,
    credentials: { [CREDENTIALS.accessKeyId]: CREDENTIALS.secretAccessKey },
  });
});
afterAll(async () => {
  await s3.close();
  await dispatcher.close();
});
beforeEach(() => s3.reset());

/** S3 requests over undici, each recorded; `delayMs` holds each answer back that long. */
function sender(sent: S3Request[] = [], delayMs = 0) {
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

function settings(overrides: Partial<HandOffSettings> = {}): HandOffSettings {
  return {
    bucket: BUCKET,
    region: 'eu-west-1',
    endpoint: new URL(s3.endpoint),
    credentials: CREDENTIALS,
    send: sender(),
    maxBytes: 100 * MB,
    errors: {
      tooLarge: (bytes) => new Error(`too large ${bytes ?? ''}`.trim()),
      failed: (cause) => new Error('failed', { cause }),
    },
    urlSeconds: 900,
    ...overrides,
  };
}

/** The exchange's side of an opening, recording its flow and its failure. */
function exchange(held: Buffer[] = []) {
  const flow: string[] = [];
  const failures: Error[] = [];
  return {
    flow,
    failures,
    request: {
      status: 200,
      headers: {},
      declaredBytes: undefined,
      deadlineAt: Date.now() + 30_000,
      held,
      flow: { pause: () => void flow.push('pause'), resume: () => void flow.push('resume') },
      fail: (error: Error) => void failures.push(error),
      prefix: 'invokeAction',
      contentType: 'application/json',
    },
  };
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('base64');

describe('openUpload', () => {
  it('stores the answer in order, in parts of 8 MiB, and gives its digest and a URL that fetches it', async () => {
    const body = Buffer.alloc(18 * MB);
    for (let i = 0; i < body.length; i += 1) body[i] = (i * 7) % 251;
    const { request: opening, failures } = exchange([body.subarray(0, MB)]);
    const stored: string[] = [];

    const sink = openUpload(settings(), { ...opening, onStored: (s) => void stored.push(s.key) });
    for (let offset = MB; offset < body.length; offset += MB) {
      sink.write(body.subarray(offset, offset + MB));
    }
    const answer = await sink.end();

    expect(failures).toEqual([]);
    expect(answer).toMatchObject({ bytes: body.length, sha256: sha256(body) });
    expect(stored).toEqual([answer.key]);
    const object = s3.objects.get(answer.key);
    expect(object?.parts.map((part) => part.length)).toEqual([8 * MB, 8 * MB, 2 * MB]);
    expect(object?.contentType).toBe('application/json');
    const fetched = await request(answer.url, { dispatcher });
    expect(sha256(Buffer.from(await fetched.body.arrayBuffer()))).toBe(sha256(body));
  });

  it('holds the exchange while two parts are in flight, and lets it go on after', async () => {
    const { request: opening, flow } = exchange();
    const sink = openUpload(settings({ send: sender([], 50) }), opening);

    for (let i = 0; i < 3; i += 1) sink.write(Buffer.alloc(8 * MB));
    expect(flow.at(-1)).toBe('pause');
    await sink.end();

    expect(flow.at(-1)).toBe('resume');
  });

  it("ends the exchange with the service's error past the ceiling, and its abort leaves nothing", async () => {
    const { request: opening, failures } = exchange([Buffer.alloc(6 * MB)]);
    const sink = openUpload(settings({ maxBytes: 10 * MB }), opening);

    sink.write(Buffer.alloc(5 * MB));
    await sink.abort();

    expect(failures.map((error) => error.message)).toEqual(['too large']);
    expect(s3.uploadsInProgress()).toBe(0);
    expect(s3.objects.size).toBe(0);
  });

  it('refuses an answer that declares more than the ceiling before sending anything', () => {
    const { request: opening } = exchange();
    const sent: S3Request[] = [];

    expect(() =>
      openUpload(settings({ maxBytes: MB, send: sender(sent) }), {
        ...opening,
        declaredBytes: 2 * MB,
      }),
    ).toThrow(`too large ${2 * MB}`);
    expect(sent).toEqual([]);
  });
});

describe('startUpload against S3 failing', () => {
  it("tries again after S3's own failure (503), and reports a refusal with S3's code", async () => {
    const scripted = await startScriptedServer((req, res) => {
      if (req.url.includes('uploads')) {
        res
          .writeHead(200)
          .end(
            '<InitiateMultipartUploadResult><UploadId>u1</UploadId></InitiateMultipartUploadResult>',
          );
      } else if (
        req.method === 'PUT' &&
        scripted.received.filter((r) => r.method === 'PUT').length === 1
      ) {
        res.writeHead(503).end('<Error><Code>SlowDown</Code></Error>');
      } else if (req.method === 'PUT') {
        res.writeHead(200, { etag: '"e"' }).end();
      } else {
        // CompleteMultipartUpload may answer 200 with an error document.
        res.writeHead(200).end('<Error><Code>InternalErrorNot</Code><Message>no</Message></Error>');
      }
    });
    const upload = startUpload({
      ...settings(),
      key: 'k',
      endpoint: scripted.url,
      send: sender(),
      contentType: 'image/png',
      deadlineAt: Date.now() + 30_000,
    });
    upload.write(Buffer.alloc(10));

    const failure = await upload.end().catch((error: unknown) => error);

    expect(scripted.received.filter((r) => r.method === 'PUT')).toHaveLength(2);
    expect(failure).toMatchObject({
      name: 'S3RequestError',
      operation: 'CompleteMultipartUpload',
      status: 200,
      code: 'InternalErrorNot',
    });
    await scripted.close();
  });
});

describe('presignedGetUrl', () => {
  it('fetches its one object until it expires, and nothing without its query', async () => {
    const upload = startUpload({
      ...settings(),
      key: 'fn/object',
      send: sender(),
      contentType: 'image/png',
      deadlineAt: Date.now() + 30_000,
    });
    upload.write(Buffer.from('png bytes'));
    await upload.end();
    const location = { ...settings(), key: 'fn/object' };

    const fresh = presignedGetUrl(location, 900);
    expect((await request(fresh, { dispatcher })).statusCode).toBe(200);

    const stale = presignedGetUrl(location, 900, new Date(Date.now() - 16 * 60_000));
    const expired = await request(stale, { dispatcher });
    expect(expired.statusCode).toBe(403);
    expect(await expired.body.text()).toContain('Request has expired');

    const bare = await request(objectUrl(location), { dispatcher });
    expect(bare.statusCode).toBe(403);
    await bare.body.dump();

    // The URL of one object reads no other: the key is signed.
    const other = fresh.replace('/fn/object?', '/fn/other?');
    const refused = await request(other, { dispatcher });
    expect(refused.statusCode).toBe(403);
    expect(await refused.body.text()).toContain('SignatureDoesNotMatch');
  });

  it('addresses AWS virtual-hosted, and a given endpoint path-style', () => {
    const aws = { ...settings(), endpoint: undefined, key: 'a/b' };
    expect(objectUrl(aws).href).toBe(`https://${BUCKET}.s3.eu-west-1.amazonaws.com/a/b`);
    expect(objectUrl({ ...settings(), key: 'a/b' }).href).toBe(`${s3.endpoint}/${BUCKET}/a/b`);
  });
});
