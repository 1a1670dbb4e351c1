/**
 * Answers of any size against moto's S3: the real handlers (a report, WAV speech, a map image,
 * an action's JSON, at 5.9, 6.1, 20 and 90 MB from the emulator) hand off what a Lambda function
 * cannot return through S3's own multipart API, and the presigned URL they answer with gives
 * the answer byte for byte, its digest checked; the stored object keeps its Content-Type (in
 * its metadata too), an attachment's Content-Disposition (a report's with its file name) and
 * `Cache-Control: private, no-store`, and S3 answers the URL with them. Over the ceiling, the upload is aborted: no object, no upload
 * left. (moto does not check signatures: the loopback stand-in of the unit and integration
 * tests does, with AWS's own signer.)
 */
import { createHash } from 'node:crypto';
import {
  GetObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
} from '@aws-sdk/client-s3';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoSecretFor } from '../../emulator/index.ts';
import { emulatorForSuite } from '../helpers/emulator.ts';
import { type HttpHandler, httpEvent, jsonBody, lambdaContext } from '../helpers/lambda.ts';
import { emulatorEnv, loadHandlers, secretFile } from '../helpers/platform.ts';
import { awsEnv, clients, createBucket, unique, useAwsEnv } from './moto.ts';

const MB = 1024 * 1024;
const SIZES = [5.9, 6.1, 20, 90].map((mb) => 2 * Math.round((mb * MB) / 2));
const LAMBDA_LIMIT = 6_291_556;
type Kind = 'report' | 'speech' | 'map' | 'action';

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('base64');

describe('the hand-off against S3 (moto)', () => {
  const emulator = emulatorForSuite();
  const bucket = unique('hand-off');
  let restore: () => void;
  let fn: Record<Kind, HttpHandler>;
  let env: Record<string, string>;

  beforeAll(async () => {
    restore = useAwsEnv();
    await createBucket(bucket);
    env = emulatorEnv(emulator, {
      SECRETS_FILE: await secretFile(demoSecretFor(emulator.url)),
      ...awsEnv(),
      HAND_OFF_BUCKET: bucket,
      UPSTREAM_TIMEOUT_MS: '60000',
    });
    fn = await loadHandlers(env, {
      report: 'functions/jobs/report.ts',
      speech: 'functions/catalogue/language.ts',
      map: 'functions/catalogue/maps.ts',
      action: 'functions/actions/invoke.ts',
    });
  });
  afterAll(() => {
    for (const name of ['HAND_OFF_BUCKET', 'HAND_OFF_MAX_MB']) delete process.env[name];
    restore();
  });

  const eventOf = (kind: Kind) => {
    const event = {
      report: () => httpEvent('jobs-report.json'),
      speech: () =>
        httpEvent('catalogue-language.json', {
          method: 'POST',
          path: '/tts',
          query: '',
          routeKey: 'POST /tts',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ speaker: 'mijin', text: '안녕하세요', format: 'wav' }),
        }),
      map: () =>
        httpEvent('catalogue-maps.json', {
          path: '/maps/static',
          query: 'w=300&h=200&center=127.1054328,37.3595963&level=16&format=png',
          routeKey: 'GET /maps/static',
        }),
      action: () =>
        httpEvent('actions-invoke.json', {
          pathParameters: { name: 'hello' },
          path: '/actions/hello',
          body: '{"name":"large"}',
          headers: { 'content-type': 'application/json' },
        }),
    }[kind]();
    event.requestContext.routeKey = event.routeKey;
    return event;
  };
  const sizeOf = (kind: Kind, bytes: number) =>
    fetch(`${emulator.url}/__emulator/answer-sizes`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ [kind]: bytes }),
    });

  describe.each(['report', 'speech', 'map', 'action'] as const)('%s', (kind) => {
    it.each(SIZES)('of %i bytes comes back byte for byte', { timeout: 120_000 }, async (bytes) => {
      await sizeOf(kind, bytes);

      const result = await fn[kind](eventOf(kind), lambdaContext(100_000));

      const served = emulator.answerSizes.served.at(-1);
      expect(served?.bytes).toBe(bytes);
      const text = kind === 'report' || kind === 'action';
      if (text && bytes < LAMBDA_LIMIT) {
        expect(result.statusCode).toBe(200);
        expect(sha256(Buffer.from(result.body ?? '', 'utf8'))).toBe(served?.sha256);
        return;
      }
      expect(result.statusCode).toBe(303);
      expect(result.headers?.['answer-digest']).toBe(`sha-256=:${served?.sha256}:`);
      const fetched = await request(String(result.headers?.location));
      expect(fetched.statusCode).toBe(200);
      const body = Buffer.from(await fetched.body.arrayBuffer());
      expect(body.length).toBe(bytes);
      expect(sha256(body)).toBe(served?.sha256);
      const key = (jsonBody(result) as { handOff: { location: string } }).handOff.location
        .split('?')[0]!
        .split(`/${bucket}/`)[1]!;
      const s3 = clients.s3();
      const object = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      await object.Body?.transformToByteArray();
      s3.destroy();
      expect(object.ContentLength).toBe(bytes);
      expect(
        key.startsWith(
          {
            report: 'getJobReport/',
            speech: 'catalogueLanguage/',
            map: 'catalogueMaps/',
            action: 'invokeAction/',
          }[kind],
        ),
      ).toBe(true);
      if (kind === 'report') {
        expect(object.ContentDisposition).toBe('attachment; filename="report-2810001.json"');
      } else {
        expect(object.ContentDisposition).toBe('attachment');
      }
      // S3 answers the presigned GET with what the object keeps: never cached on the way.
      expect(object.CacheControl).toBe('private, no-store');
      expect(fetched.headers['cache-control']).toBe('private, no-store');
      expect(fetched.headers['content-disposition']).toBe(object.ContentDisposition);
      expect(object.Metadata?.['content-type']).toBe(object.ContentType);
      expect(object.ContentType).toMatch(
        {
          report: /^application\/json/,
          speech: /^audio\/wav$/,
          map: /^image\/png$/,
          action: /^application\/json/,
        }[kind],
      );
    });
  });

  it('aborts the upload of an answer over the ceiling: no object, no upload left', {
    timeout: 120_000,
  }, async () => {
    const capped = await loadHandlers(
      { ...env, HAND_OFF_BUCKET: unique('hand-off-capped'), HAND_OFF_MAX_MB: '8' },
      { action: 'functions/actions/invoke.ts' },
    );
    const cappedBucket = String(process.env.HAND_OFF_BUCKET);
    await createBucket(cappedBucket);
    // Chunked, so that only reading tells its size: stopped at 8 MB, after the first part.
    await emulator.faults.add({
      kind: 'oversize',
      bytes: 20 * MB,
      contentType: 'application/json',
      match: { pathPrefix: '/fx7h2k/demo/hello' },
    });

    const result = await capped.action(eventOf('action'), lambdaContext(100_000));

    expect(result.statusCode).toBe(502);
    expect(jsonBody(result)).toMatchObject({ error: { errorCode: '900' } });
    const s3 = clients.s3();
    const objects = await s3.send(new ListObjectsV2Command({ Bucket: cappedBucket }));
    const uploads = await s3.send(new ListMultipartUploadsCommand({ Bucket: cappedBucket }));
    s3.destroy();
    expect(objects.KeyCount ?? 0).toBe(0);
    expect(uploads.Uploads ?? []).toEqual([]);
  });
});
