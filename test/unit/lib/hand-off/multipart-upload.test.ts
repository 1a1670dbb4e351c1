/**
 * The upload of one answer (lib/hand-off/multipart-upload.ts), the module a hand-off loads,
 * against a loopback S3 that checks each signature and part (scripts/local/s3-stand-in.ts): the
 * answer stored in order with its digest and a URL that fetches it, the exchange held while two
 * parts are in flight, the service's errors past the ceiling, and an abort that leaves nothing.
 */
import { createHash } from 'node:crypto';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import {
  type HandOffSettings,
  openUpload,
  storedHeadersOf,
} from '../../../../lib/hand-off/multipart-upload.ts';
import type { S3Request } from '../../../../lib/hand-off/s3-multipart.ts';
import { s3Sender, s3StandInForSuite } from '../../../helpers/s3-sender.ts';

const MB = 1024 * 1024;
const { bucket: BUCKET, credentials: CREDENTIALS, dispatcher, standIn: s3 } = s3StandInForSuite();

/** S3 requests over undici, each recorded; `delayMs` holds each answer back that long. */
const sender = (sent: S3Request[] = [], delayMs = 0) => s3Sender(dispatcher, sent, delayMs);

function settings(overrides: Partial<HandOffSettings> = {}): HandOffSettings {
  return {
    bucket: BUCKET,
    region: 'eu-west-1',
    endpoint: new URL(s3().endpoint),
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
    const object = s3().objects.get(answer.key);
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
    expect(s3().uploadsInProgress()).toBe(0);
    expect(s3().objects.size).toBe(0);
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

describe('storedHeadersOf', () => {
  it('keeps a passive type, and stores any other as bytes, its own type in the metadata', () => {
    expect(storedHeadersOf('image/png')).toEqual({
      contentType: 'image/png',
      contentDisposition: 'attachment',
      cacheControl: 'private, no-store',
      metadata: { 'content-type': 'image/png' },
    });
    expect(storedHeadersOf('application/json; charset=utf-8').contentType).toBe(
      'application/json; charset=utf-8',
    );
    for (const active of ['text/html', 'TEXT/HTML', 'image/svg+xml', 'text/xml', 'text/plain']) {
      expect(storedHeadersOf(active).contentType, active).toBe('application/octet-stream');
    }
  });

  it('is always an attachment: a report keeps its file name, anything else is made one', () => {
    const report = 'attachment; filename="report-7.json"';
    expect(storedHeadersOf('application/json', report).contentDisposition).toBe(report);
    expect(storedHeadersOf('text/html', 'inline').contentDisposition).toBe('attachment');
    expect(storedHeadersOf('text/html', 'attachmentx').contentDisposition).toBe('attachment');
  });

  it('leaves a type S3 could not keep out of the metadata', () => {
    expect(storedHeadersOf(`text/html; x=${'y'.repeat(300)}`).metadata).toEqual({});
    expect(storedHeadersOf('text/html; x=\u00e9').metadata).toEqual({});
  });
});
