/**
 * The hand-off of a route that passes its answer through (lib/http/hand-off.ts), bound as the
 * functions bind it (the action route here, in front of a loopback action the test scripts, and a
 * loopback S3 that checks every signature): an answer too large to return is answered 303 See
 * Other to its stored copy, with its length and digest in headers and in a small JSON body; the
 * request line names the object and its size, the metrics count it; an answer that fits comes
 * back as before; without a bucket (a local run without its stand-in), a large answer is refused
 * as it always was.
 */
import { createHash } from 'node:crypto';
import { request } from 'undici';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type * as ExecutionRouteModule from '../../../../lib/http/execution-route.ts';
import { handedOffResponse, passThroughOrHandedOff } from '../../../../lib/http/hand-off.ts';
import type { BoundRoute } from '../../../../lib/http/route-stack.ts';
import { functionRoutes } from '../../../../lib/http/routes/functions.ts';
import { type S3StandIn, startS3StandIn } from '../../../../scripts/local/s3-stand-in.ts';
import { httpEvent, jsonBody, lambdaContext } from '../../../helpers/lambda.ts';
import { captureLogLines } from '../../../helpers/logs.ts';
import { secretFile } from '../../../helpers/platform.ts';
import { type ScriptedServer, startScriptedServer } from '../../../helpers/scripted-server.ts';
import { coldStartWith } from './fresh-runtime.ts';

const TOKEN = 'hand-off-route-test-token-0000000000000';
const MB = 1024 * 1024;
const BUCKET = 'hand-off-route-test';
const AWS = { AWS_ACCESS_KEY_ID: 'AKIDROUTETEST', AWS_SECRET_ACCESS_KEY: 'route-secret' };

describe('answerHandOff on the action route', () => {
  let action: ScriptedServer;
  let s3: S3StandIn;
  let secretPath: string;
  let lines: string[];

  beforeAll(async () => {
    action = await startScriptedServer();
    s3 = await startS3StandIn({
      bucket: BUCKET,
      credentials: { [AWS.AWS_ACCESS_KEY_ID]: AWS.AWS_SECRET_ACCESS_KEY },
    });
    secretPath = await secretFile({
      actions: { big: { url: `${action.url.href}fx/dev/big` } },
      callers: [{ id: 'runner', token: TOKEN, scopes: ['actions:*'] }],
    });
  });
  afterAll(async () => {
    await action.close();
    await s3.close();
  });
  beforeEach(() => {
    s3.reset();
    lines = captureLogLines();
  });
  afterEach(() => {
    vi.restoreAllMocks();
    vi.unstubAllEnvs();
  });

  /** The action route, bound as functions/actions/invoke.ts binds it, on a cold start. */
  async function invokeWith(env: Record<string, string>): Promise<BoundRoute> {
    coldStartWith({ SECRETS_FILE: secretPath, AWS_REGION: 'eu-west-1', ...env });
    const { executionRoute } = (await import(
      '../../../../lib/http/execution-route.ts'
    )) as typeof ExecutionRouteModule;
    return executionRoute(functionRoutes.invokeAction);
  }

  const withBucket = { ...AWS, HAND_OFF_BUCKET: BUCKET, AWS_ENDPOINT_URL_S3: '' };
  const event = () =>
    httpEvent('jobs-search.json', {
      pathParameters: { name: 'big' },
      body: '{}',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    });

  it('answers 303 to the stored answer, its length and digest in headers and body', async () => {
    const body = Buffer.from(JSON.stringify({ items: 'x'.repeat(7 * MB) }));
    action.script = (_req, res) =>
      res
        .writeHead(200, {
          'content-type': 'application/json',
          'x-openwhisk-activation-id': 'act-large',
        })
        .end(body);
    const invoke = await invokeWith({ ...withBucket, AWS_ENDPOINT_URL_S3: s3.endpoint });

    const result = await invoke(event(), lambdaContext());

    const digest = createHash('sha256').update(body).digest('base64');
    expect(result.statusCode).toBe(303);
    expect(result.headers).toMatchObject({
      'answer-length': String(body.length),
      'answer-digest': `sha-256=:${digest}:`,
      'cache-control': 'no-store',
      'content-type': 'application/json',
      'x-content-type-options': 'nosniff',
      // The action's activation id, as on any answer of it.
      'x-openwhisk-activation-id': 'act-large',
    });
    const location = String(result.headers?.location);
    expect(location.startsWith(`${s3.endpoint}/${BUCKET}/invokeAction/`)).toBe(true);
    expect(jsonBody(result)).toEqual({
      handOff: {
        location,
        expiresAt: expect.stringMatching(/Z$/),
        contentLength: body.length,
        contentType: 'application/json',
        sha256: digest,
        status: 200,
      },
    });
    const fetched = await request(location);
    expect(Buffer.from(await fetched.body.arrayBuffer()).equals(body)).toBe(true);
    const line = lines.map((text) => JSON.parse(text)).find((l) => l.message === 'request');
    expect(line).toMatchObject({
      status: 303,
      handOffKey: expect.stringMatching(/^invokeAction\/[0-9a-f-]{36}$/),
      handOffBytes: body.length,
      HandOffs: 1,
      HandOffBytes: body.length,
    });
    const metrics = line._aws.CloudWatchMetrics.flatMap(
      (directive: { Metrics: { Name: string; Unit: string }[] }) => directive.Metrics,
    );
    expect(metrics).toContainEqual({ Name: 'HandOffBytes', Unit: 'Bytes' });
  });

  it('passes an answer that fits through as before, with nothing stored', async () => {
    action.script = (_req, res) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"small":true}');
    const invoke = await invokeWith({ ...withBucket, AWS_ENDPOINT_URL_S3: s3.endpoint });

    const result = await invoke(event(), lambdaContext());

    expect(result.statusCode).toBe(200);
    expect(jsonBody(result)).toEqual({ small: true });
    expect(s3.requests).toHaveLength(0);
  });

  it('refuses a large answer as before where the run has no bucket (502/520)', async () => {
    action.script = (_req, res) =>
      res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.alloc(7 * MB));
    const invoke = await invokeWith(AWS);

    const result = await invoke(event(), lambdaContext());

    expect(result.statusCode).toBe(502);
    expect(jsonBody(result)).toMatchObject({ error: { errorCode: '520' } });
  });
});

describe('passThroughOrHandedOff', () => {
  const stored = {
    key: 'fn/k',
    bytes: 12,
    sha256: 'n4bQgYhMfWWaL+qgxVrQFaO/TxsrC4Is0V1sFbDwCgg=',
    contentType: 'image/png',
    url: 'https://b.s3.us-east-1.amazonaws.com/fn/k?X-Amz-Signature=x',
    expiresAt: new Date('2030-01-01T00:15:00Z'),
  };

  it('answers 303 for an answer handed off, with the platform status in the body', () => {
    const answer = { status: 201, headers: {}, body: Buffer.alloc(0), stored, attempts: 1 };
    expect(passThroughOrHandedOff(answer, 201)).toEqual(handedOffResponse(stored, 201));
    expect(jsonBody(handedOffResponse(stored, 201))).toMatchObject({
      handOff: { status: 201, expiresAt: '2030-01-01T00:15:00.000Z' },
    });
  });

  it('passes any other answer through', () => {
    const answer = {
      status: 200,
      headers: { 'content-type': 'text/plain' },
      body: Buffer.from('hi'),
      attempts: 1,
    };
    expect(passThroughOrHandedOff(answer, 200)).toMatchObject({ statusCode: 200, body: 'hi' });
  });
});
