/**
 * S3's multipart upload (lib/hand-off/s3-multipart.ts): S3's own failures tried again and its
 * refusals reported with S3's code, against a scripted S3; a presigned URL that fetches its one
 * object until it expires, against a loopback S3 that checks signatures
 * (scripts/local/s3-stand-in.ts); and the object's address.
 */
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import {
  type ObjectLocation,
  objectUrl,
  presignedGetUrl,
  startUpload,
} from '../../../../lib/hand-off/s3-multipart.ts';
import { s3Sender, s3StandInForSuite } from '../../../helpers/s3-sender.ts';
import { startScriptedServer } from '../../../helpers/scripted-server.ts';

const { bucket: BUCKET, credentials: CREDENTIALS, dispatcher, standIn: s3 } = s3StandInForSuite();

const sender = () => s3Sender(dispatcher);

/** The object `key` in the stand-in's bucket. */
function settings(): Omit<ObjectLocation, 'key'> {
  return {
    bucket: BUCKET,
    region: 'eu-west-1',
    endpoint: new URL(s3().endpoint),
    credentials: CREDENTIALS,
  };
}

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
    expect(objectUrl({ ...settings(), key: 'a/b' }).href).toBe(`${s3().endpoint}/${BUCKET}/a/b`);
  });
});
