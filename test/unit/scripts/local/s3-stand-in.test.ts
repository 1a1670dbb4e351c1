/**
 * The hand-off bucket's stand-in (scripts/local/s3-stand-in.ts), driven by AWS's own S3 client:
 * it takes the SDK's signed multipart calls, refuses what S3 refuses (a bad signature, a payload
 * that does not match its hash, a part too small but the last, another bucket), serves an object
 * only to a presigned URL that has not expired, and forgets it after a day.
 */
import {
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { request } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { presignedGetUrl } from '../../../../lib/hand-off/s3-multipart.ts';
import { type S3StandIn, startS3StandIn } from '../../../../scripts/local/s3-stand-in.ts';

const MB = 1024 * 1024;
const BUCKET = 'stand-in-test';
const CREDENTIALS = { accessKeyId: 'AKIDSTANDINTEST', secretAccessKey: 'stand-in-secret' };

let s3: S3StandIn;
let now = Date.now();
let client: S3Client;

beforeAll(async () => {
  s3 = await startS3StandIn({
    bucket: BUCKET,
    credentials: { [CREDENTIALS.accessKeyId]: CREDENTIALS.secretAccessKey },
    now: () => now,
  });
  client = new S3Client({
    endpoint: s3.endpoint,
    region: 'eu-west-1',
    forcePathStyle: true,
    credentials: CREDENTIALS,
    maxAttempts: 1,
    // No CRC trailers: the hand-off signs each part with its SHA-256, as the stand-in expects.
    requestChecksumCalculation: 'WHEN_REQUIRED',
  });
});
afterAll(async () => {
  client.destroy();
  await s3.close();
});
beforeEach(() => {
  now = Date.now();
  s3.reset();
});

/** A multipart upload of these parts through the SDK; its key. */
async function upload(key: string, parts: Buffer[], bucket = BUCKET) {
  const { UploadId } = await client.send(
    new CreateMultipartUploadCommand({
      Bucket: bucket,
      Key: key,
      ContentType: 'audio/wav',
      ContentDisposition: 'attachment; filename="a.wav"',
      CacheControl: 'private, no-store',
      Metadata: { 'content-type': 'audio/wav; rate=8000' },
    }),
  );
  const done = [];
  for (const [index, body] of parts.entries()) {
    const { ETag } = await client.send(
      new UploadPartCommand({
        Bucket: bucket,
        Key: key,
        UploadId,
        PartNumber: index + 1,
        Body: body,
      }),
    );
    done.push({ PartNumber: index + 1, ETag });
  }
  await client.send(
    new CompleteMultipartUploadCommand({
      Bucket: bucket,
      Key: key,
      UploadId,
      MultipartUpload: { Parts: done },
    }),
  );
  return {
    bucket: BUCKET,
    key,
    region: 'eu-west-1',
    endpoint: new URL(s3.endpoint),
    credentials: CREDENTIALS,
  };
}

describe('the S3 stand-in', () => {
  it("takes the SDK's multipart upload, and serves the object to its presigned URL with what it keeps", async () => {
    const parts = [Buffer.alloc(5 * MB, 1), Buffer.alloc(10, 2)];
    const location = await upload('fn/one', parts);

    const answer = await request(presignedGetUrl(location, 900, new Date(now)));

    expect(answer.statusCode).toBe(200);
    expect(answer.headers['content-type']).toBe('audio/wav');
    expect(answer.headers['content-disposition']).toBe('attachment; filename="a.wav"');
    expect(answer.headers['cache-control']).toBe('private, no-store');
    expect(answer.headers['x-amz-meta-content-type']).toBe('audio/wav; rate=8000');
    expect(Buffer.from(await answer.body.arrayBuffer()).equals(Buffer.concat(parts))).toBe(true);
  });

  it('refuses a part too small but the last, as S3 does', async () => {
    const failure = await upload('fn/small', [Buffer.alloc(10), Buffer.alloc(10)]).catch(
      (error: unknown) => error,
    );
    expect(failure).toMatchObject({ name: 'EntityTooSmall' });
  });

  it('refuses a signature of another secret, and another bucket', async () => {
    const stranger = new S3Client({
      endpoint: s3.endpoint,
      region: 'eu-west-1',
      forcePathStyle: true,
      credentials: { ...CREDENTIALS, secretAccessKey: 'not it' },
      maxAttempts: 1,
    });
    await expect(
      stranger.send(new CreateMultipartUploadCommand({ Bucket: BUCKET, Key: 'k' })),
    ).rejects.toMatchObject({ name: 'SignatureDoesNotMatch' });
    stranger.destroy();
    await expect(upload('k', [Buffer.alloc(1)], 'other-bucket')).rejects.toMatchObject({
      name: 'NoSuchBucket',
    });
  });

  it('refuses a payload that is not the one its hash names', async () => {
    const created = await client.send(
      new CreateMultipartUploadCommand({ Bucket: BUCKET, Key: 'k' }),
    );
    const send = client.send.bind(client);
    const part = new UploadPartCommand({
      Bucket: BUCKET,
      Key: 'k',
      UploadId: created.UploadId,
      PartNumber: 1,
      Body: Buffer.from('what was signed'),
    });
    // Change the body once signed, as a corrupted transfer would.
    part.middlewareStack.add(
      (next) => async (args) => {
        (args.request as { body: unknown }).body = Buffer.from('what was sent!!');
        return next(args);
      },
      { step: 'finalizeRequest', priority: 'low' },
    );
    await expect(send(part)).rejects.toMatchObject({ name: 'XAmzContentSHA256Mismatch' });
  });

  it('serves an object only to a URL with its query, before it expires, and for a day', async () => {
    const location = await upload('fn/dated', [Buffer.from('bytes')]);
    const url = presignedGetUrl(location, 900, new Date(now));

    const bare = await request(url.split('?')[0] ?? '');
    expect(bare.statusCode).toBe(403);
    await bare.body.dump();

    now += 16 * 60_000;
    const late = await request(url);
    expect(late.statusCode).toBe(403);
    expect(await late.body.text()).toContain('Request has expired');

    now += 24 * 60 * 60_000;
    const gone = await request(presignedGetUrl(location, 900, new Date(now)));
    expect(gone.statusCode).toBe(404);
    expect(await gone.body.text()).toContain('NoSuchKey');
  });
});
