/**
 * Answers of any size, through the real handlers as Lambda invokes them (the middy stack, undici
 * over loopback) against the emulator, which answers a report, WAV speech, a map image and an
 * action's JSON of the size each case asks, and the hand-off bucket's loopback stand-in, which
 * checks every signature as S3 does: 5.9 MB, 6.1 MB, 20 MB and 90 MB of each come back byte for
 * byte, with the digest checked; those too large for a Lambda response by a 303 to their stored
 * copy, whose presigned URL gives them as an attachment, never cached, with their Content-Type
 * when it renders nothing (an action's HTML as application/octet-stream).
 * Over the ceiling, nothing is stored, and the caller's plan counts each request once.
 */
import { createHash } from 'node:crypto';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { demoSecretFor } from '../../../emulator/index.ts';
import { type S3StandIn, startLocalHandOff } from '../../../scripts/local/s3-stand-in.ts';
import { emulatorForSuite } from '../../helpers/emulator.ts';
import { type HttpHandler, httpEvent, jsonBody, lambdaContext } from '../../helpers/lambda.ts';
import { emulatorEnv, loadHandlers, secretFile } from '../../helpers/platform.ts';

const MB = 1024 * 1024;
/** Even sizes: a 16-bit WAV has an even number of bytes. */
const SIZES = [5.9, 6.1, 20, 90].map((mb) => 2 * Math.round((mb * MB) / 2));
/** Lambda's largest response: a body above this never goes back as it is. */
const LAMBDA_LIMIT = 6_291_556;
const AWS = {
  AWS_ACCESS_KEY_ID: 'AKIDHANDOFFINTEGRATION',
  AWS_SECRET_ACCESS_KEY: 'hand-off-integration-secret',
  AWS_REGION: 'us-east-1',
};

type Kind = 'report' | 'speech' | 'map' | 'action';
type Result = Awaited<ReturnType<HttpHandler>>;

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('base64');

describe('answers of any size, handed off past what a Lambda function returns', () => {
  const emulator = emulatorForSuite();
  const agent = new Agent();
  let s3: S3StandIn;
  let fn: Record<Kind, HttpHandler>;

  beforeAll(async () => {
    const handOff = await startLocalHandOff(AWS);
    s3 = handOff.standIn;
    const secret = await secretFile(demoSecretFor(emulator.url));
    fn = await loadHandlers(
      emulatorEnv(emulator, {
        SECRETS_FILE: secret,
        ...AWS,
        ...handOff.env,
        // 90 MB in and out of loopback on two busy cores.
        UPSTREAM_TIMEOUT_MS: '60000',
      }),
      {
        report: 'functions/jobs/report.ts',
        speech: 'functions/catalogue/language.ts',
        map: 'functions/catalogue/maps.ts',
        action: 'functions/actions/invoke.ts',
      },
    );
  });
  afterAll(async () => {
    await s3?.close();
    await agent.close();
    for (const name of [...Object.keys(AWS), 'HAND_OFF_BUCKET', 'AWS_ENDPOINT_URL_S3']) {
      delete process.env[name];
    }
  });
  beforeEach(() => s3.reset());

  /** One request of a kind, as API Gateway hands it to the function. */
  const requestOf = (kind: Kind) => {
    switch (kind) {
      case 'report':
        return httpEvent('jobs-report.json');
      case 'speech':
        return httpEvent('catalogue-language.json', {
          method: 'POST',
          path: '/tts',
          query: '',
          routeKey: 'POST /tts',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ speaker: 'mijin', text: '안녕하세요', format: 'wav' }),
        });
      case 'map':
        return httpEvent('catalogue-maps.json', {
          path: '/maps/static',
          query: 'w=300&h=200&center=127.1054328,37.3595963&level=16&format=png',
          routeKey: 'GET /maps/static',
        });
      case 'action':
        return httpEvent('actions-invoke.json', {
          pathParameters: { name: 'hello' },
          path: '/actions/hello',
          body: '{"name":"large"}',
          headers: { 'content-type': 'application/json' },
        });
    }
  };
  const invoke = async (kind: Kind, bytes: number): Promise<Result> => {
    await fetch(`${emulator.url}/__emulator/answer-sizes`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ [kind]: bytes }),
    });
    const event = requestOf(kind);
    event.requestContext.routeKey = event.routeKey;
    return fn[kind](event, lambdaContext(90_000));
  };
  /** What the emulator served, by its own digest. */
  const served = () => emulator.answerSizes.served.at(-1);

  /** The answer's bytes as a caller gets them: directly, or by following the 303. */
  async function bytesFrom(result: Result) {
    if (result.statusCode !== 303) {
      const body = result.isBase64Encoded
        ? Buffer.from(result.body ?? '', 'base64')
        : Buffer.from(result.body ?? '', 'utf8');
      return { body, headers: result.headers ?? {} };
    }
    const fetched = await request(String(result.headers?.location), { dispatcher: agent });
    expect(fetched.statusCode).toBe(200);
    return { body: Buffer.from(await fetched.body.arrayBuffer()), headers: fetched.headers };
  }

  const CONTENT_TYPES: Record<Kind, RegExp> = {
    report: /^application\/json/,
    speech: /^audio\/wav$/,
    map: /^image\/png$/,
    action: /^application\/json/,
  };

  describe.each(['report', 'speech', 'map', 'action'] as const)('%s', (kind) => {
    it.each(SIZES)(`of %i bytes comes back byte for byte, its digest checked`, async (bytes) => {
      const result = await invoke(kind, bytes);
      const expected = served();
      expect(expected?.bytes).toBe(bytes);

      const { body, headers } = await bytesFrom(result);

      expect(body.length).toBe(bytes);
      expect(sha256(body)).toBe(expected?.sha256);
      expect(String(headers['content-type'])).toMatch(CONTENT_TYPES[kind]);
      // Text (a report, JSON) goes back as it is up to Lambda's limit; bytes, in base64, a
      // quarter earlier: 5.9 MB of WAV or PNG is already too large.
      const fitsText = kind === 'report' || kind === 'action';
      expect(result.statusCode).toBe(fitsText && bytes < LAMBDA_LIMIT ? 200 : 303);
      if (result.statusCode === 303) {
        expect(result.headers?.['answer-length']).toBe(String(bytes));
        expect(result.headers?.['answer-digest']).toBe(`sha-256=:${expected?.sha256}:`);
        expect(jsonBody(result)).toMatchObject({
          handOff: { contentLength: bytes, sha256: expected?.sha256, status: 200 },
        });
        expect(s3.uploadsInProgress()).toBe(0);
        // The stored copy is something to save, kept in no cache on the way.
        expect(headers['cache-control']).toBe('private, no-store');
        if (kind !== 'report') expect(headers['content-disposition']).toBe('attachment');
      }
      if (kind === 'report') {
        expect(headers['content-disposition']).toBe('attachment; filename="report-2810001.json"');
      }
    });
  });

  it("stores an action's HTML as bytes to save: nothing of it renders on the bucket's origin", async () => {
    await emulator.faults.add({
      kind: 'oversize',
      bytes: 8 * MB,
      contentType: 'text/html',
      head: '<html><script>document.cookie</script>',
      match: { pathPrefix: '/fx7h2k/demo/hello' },
    });
    const event = requestOf('action');
    event.requestContext.routeKey = event.routeKey;

    const result = await fn.action(event, lambdaContext(90_000));

    expect(result.statusCode).toBe(303);
    // The platform's type is the 303's to tell; the stored copy is an attachment of bytes.
    expect(jsonBody(result)).toMatchObject({ handOff: { contentType: 'text/html' } });
    const { body, headers } = await bytesFrom(result);
    expect(body.length).toBe(8 * MB);
    expect(headers['content-type']).toBe('application/octet-stream');
    expect(headers['content-disposition']).toBe('attachment');
    expect(headers['cache-control']).toBe('private, no-store');
    expect(headers['x-amz-meta-content-type']).toBe('text/html');
  });

  it("counts a request handed off in its caller's plan by its size: the request, and a unit for each MB started", async () => {
    const metered = { authorization: 'Bearer demo-metered-token-reads-jobs-under-a-plan' };
    await fetch(`${emulator.url}/__emulator/answer-sizes`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ report: 20 * MB }),
    });

    const first = await fn.report(
      httpEvent('jobs-report.json', { headers: metered }),
      lambdaContext(),
    );
    const second = await fn.report(
      httpEvent('jobs-report.json', { headers: metered }),
      lambdaContext(),
    );

    expect([first.statusCode, second.statusCode]).toEqual([303, 303]);
    // A day's quota of 1000: the request and 20 MB spent, then twice that.
    expect(String(first.headers?.RateLimit)).toContain('"caller-day";r=979;');
    expect(String(second.headers?.RateLimit)).toContain('"caller-day";r=958;');
  });

  it('refuses an answer over the ceiling, 502/900 with its size, and stores nothing', async () => {
    const over = await loadHandlers(
      emulatorEnv(emulator, {
        SECRETS_FILE: await secretFile(demoSecretFor(emulator.url)),
        ...AWS,
        HAND_OFF_BUCKET: 'platform-gateway-local-hand-off',
        AWS_ENDPOINT_URL_S3: `http://127.0.0.1:${s3.port}`,
        HAND_OFF_MAX_MB: '8',
        UPSTREAM_TIMEOUT_MS: '60000',
      }),
      { speech: 'functions/catalogue/language.ts' },
    );
    await fetch(`${emulator.url}/__emulator/answer-sizes`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ speech: 20 * MB }),
    });
    const event = requestOf('speech');
    event.requestContext.routeKey = event.routeKey;

    const result = await over.speech(event, lambdaContext(90_000));

    expect(result.statusCode).toBe(502);
    expect(jsonBody(result)).toMatchObject({
      // Its Content-Length says how large it is: refused before anything is stored.
      error: {
        errorCode: '900',
        details: expect.stringContaining(`${20 * MB} bytes, over the ${8 * MB}`),
      },
    });
    expect(s3.objects.size).toBe(0);
    expect(s3.uploadsInProgress()).toBe(0);
  });
});
