/**
 * ANY /actions/{name} and POST /triggers/{name} invoked as Lambda invokes them, with the real
 * middy stack, over loopback against the emulator's actions and triggers.
 */
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  DEMO_API_ID,
  DEMO_STAGE,
  demoSecretFor,
  ECHO_BINARY_BODY,
  type Emulator,
  FAIL_ERROR,
} from '../../../emulator/index.ts';
import { emulatorForSuite } from '../../helpers/emulator.ts';
import { type HttpHandler, httpEvent, jsonBody, lambdaContext } from '../../helpers/lambda.ts';
import { emulatorEnv, loadHandlers, secretFile } from '../../helpers/platform.ts';

type ErrorBody = { error: { errorCode: string; message: string; details?: unknown } };

const base = `/${DEMO_API_ID}/${DEMO_STAGE}`;
const sentTo = (emulator: Emulator) =>
  emulator.requests.filter((r) => r.url.startsWith(`${base}/`));

const invokeEvent = (name: string, changes: Parameters<typeof httpEvent>[1] = {}) =>
  httpEvent('actions-invoke.json', {
    path: `/actions/${name}`,
    pathParameters: { name },
    ...changes,
  });

/** The log lines (console.log is mocked in each test) that carry the configuration alarm's metric. */
function configurationErrorLines(): Record<string, unknown>[] {
  return vi
    .mocked(console.log)
    .mock.calls.map(([line]) => JSON.parse(String(line)) as Record<string, unknown>)
    .filter((line) => 'ConfigurationErrors' in line);
}

describe('function execution against the emulator', () => {
  const emulator = emulatorForSuite();
  let fn: { invoke: HttpHandler; fire: HttpHandler };

  beforeAll(async () => {
    const secret = demoSecretFor(emulator.url);
    const hello = secret.actions!.hello!.url;
    secret.actions = {
      ...secret.actions,
      helloWithQuery: { url: `${hello}?timeout=5000&blocking=false`, web: false },
      keyedWrongKey: { url: `${emulator.url}${base}/keyed`, apiKey: 'not-a-key' },
    };
    const file = await secretFile(secret);
    fn = await loadHandlers(emulatorEnv(emulator, { SECRETS_FILE: file }), {
      invoke: 'functions/actions/invoke.ts',
      fire: 'functions/triggers/fire.ts',
    });
  });
  beforeEach(() => {
    vi.spyOn(console, 'log').mockImplementation(() => {});
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  describe('ordinary actions', () => {
    it('runs the action blocking, unsigned, and returns its result unchanged', async () => {
      const result = await fn.invoke(httpEvent('actions-invoke.json'), lambdaContext());
      expect(result.statusCode).toBe(200);
      expect(jsonBody(result)).toEqual({ payload: 'Hello, Ada!' });
      expect(result.headers?.['x-openwhisk-activation-id']).toMatch(/^[0-9a-f]{32}$/);
      const [sent] = sentTo(emulator);
      expect(sent).toMatchObject({
        method: 'POST',
        url: `${base}/hello?blocking=true&result=true`,
        body: '{"name":"Ada"}',
      });
      expect(sent!.headers['content-type']).toBe('application/json');
      expect(sent!.headers['x-platform-apigw-signature-v2']).toBeUndefined();
      expect(sent!.headers.authorization).toBeUndefined();
    });

    it('returns the whole activation record with result=false', async () => {
      const result = await fn.invoke(
        httpEvent('actions-invoke.json', { query: 'result=false' }),
        lambdaContext(),
      );
      expect(result.statusCode).toBe(200);
      expect(jsonBody(result)).toMatchObject({
        name: 'hello',
        activationId: expect.any(String),
        response: { status: 'success', success: true, result: { payload: 'Hello, Ada!' } },
      });
      expect(sentTo(emulator)[0]?.url).toBe(`${base}/hello?blocking=true&result=false`);
    });

    it("adds blocking and result to the URL's own query, replacing its blocking", async () => {
      const result = await fn.invoke(invokeEvent('helloWithQuery'), lambdaContext());
      expect(result.statusCode).toBe(200);
      expect(sentTo(emulator)[0]?.url).toBe(`${base}/hello?timeout=5000&blocking=true&result=true`);
    });

    it('runs an action with parameters nested 100 deep; deeper than the platform parses is its 400', async () => {
      const nested = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
      const ran = await fn.invoke(invokeEvent('hello', { body: nested(100) }), lambdaContext());
      expect(ran.statusCode).toBe(200);
      expect(jsonBody(ran)).toEqual({ payload: 'Hello, World!' });
      const refused = await fn.invoke(
        invokeEvent('hello', { body: nested(1500) }),
        lambdaContext(),
      );
      expect(refused.statusCode).toBe(400);
      expect(String((jsonBody(refused) as { error: unknown }).error)).toMatch(
        /JSON input nested too deeply/,
      );
    });

    it("passes the action's own failure through unchanged (502, not an envelope)", async () => {
      const result = await fn.invoke(invokeEvent('fail'), lambdaContext());
      expect(result.statusCode).toBe(502);
      expect(jsonBody(result)).toEqual({ error: FAIL_ERROR });
    });

    it('sends the API key of an action that has one', async () => {
      const result = await fn.invoke(invokeEvent('keyed'), lambdaContext());
      expect(result.statusCode).toBe(200);
      expect(sentTo(emulator)[0]?.headers['x-platform-apigw-api-key']).toBe('demo-gateway-api-key');
    });

    it("answers the gateway's refusal of the action's key as the operator's 500/900, counted for the alarm", async () => {
      const result = await fn.invoke(invokeEvent('keyedWrongKey'), lambdaContext());
      expect(result.statusCode).toBe(500);
      expect((jsonBody(result) as ErrorBody).error).toEqual({
        errorCode: '900',
        message: 'Unexpected Error',
        details:
          'The platform refused this service\'s own credentials (the action "keyedWrongKey"\'s apiKey). ' +
          'Its operator must correct the secret; retrying will not help until then.',
      });
      expect(configurationErrorLines()).toEqual([
        expect.objectContaining({
          level: 'error',
          credentials: 'the action "keyedWrongKey"\'s apiKey',
          upstreamStatus: 401,
          upstreamErrorCode: '200',
          Cause: 'credentials',
          ConfigurationErrors: 1,
        }),
      ]);
    });

    it.each(['GET', 'PUT', 'DELETE', 'PATCH'])(
      'refuses %s with 405 and Allow: POST, sending nothing',
      async (method) => {
        const result = await fn.invoke(
          httpEvent('actions-invoke.json', { method }),
          lambdaContext(),
        );
        expect(result.statusCode).toBe(405);
        expect(result.headers?.Allow).toBe('POST');
        expect((jsonBody(result) as ErrorBody).error.errorCode).toBe('100');
        expect(sentTo(emulator)).toHaveLength(0);
      },
    );

    it.each([
      ['result=maybe', { query: 'result=maybe' }],
      ['result twice', { query: 'result=true&result=false' }],
      ['no body', { body: undefined }],
      ['a JSON array', { body: '[1]' }],
      ['malformed JSON', { body: '{"name":' }],
      [
        'a form body',
        { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'a=b' },
      ],
    ] as const)('refuses %s with 400/100, sending nothing', async (_case, changes) => {
      const result = await fn.invoke(httpEvent('actions-invoke.json', changes), lambdaContext());
      expect(result.statusCode).toBe(400);
      expect((jsonBody(result) as ErrorBody).error.errorCode).toBe('100');
      expect(sentTo(emulator)).toHaveLength(0);
    });

    it('answers 404/300 for an unknown action, in XML when asked, sending nothing', async () => {
      const result = await fn.invoke(
        invokeEvent('nope', { headers: { accept: 'text/xml' } }),
        lambdaContext(),
      );
      expect(result.statusCode).toBe(404);
      expect(result.body).toContain('<errorCode>300</errorCode>');
      expect(sentTo(emulator)).toHaveLength(0);
    });

    it('refuses a caller without a valid token, sending nothing', async () => {
      const result = await fn.invoke(
        httpEvent('actions-invoke.json', { headers: { authorization: 'Bearer wrong' } }),
        lambdaContext(),
      );
      expect(result.statusCode).toBe(401);
      expect(sentTo(emulator)).toHaveLength(0);
    });

    it('does not repeat a POST the gateway failed after it may have reached the action', async () => {
      emulator.faults.add({ kind: 'status', status: 503, match: { method: 'POST' } });
      const result = await fn.invoke(httpEvent('actions-invoke.json'), lambdaContext());
      expect(result.statusCode).toBe(503);
      expect(jsonBody(result)).toEqual({ error: { errorCode: '500', message: 'Endpoint Error' } });
      expect(sentTo(emulator)).toHaveLength(1);
    });

    it('does not repeat a POST whose connection was reset', async () => {
      emulator.faults.add({ kind: 'reset', match: { method: 'POST' } });
      const result = await fn.invoke(httpEvent('actions-invoke.json'), lambdaContext());
      expect(result.statusCode).toBe(503);
      expect(sentTo(emulator)).toHaveLength(1);
      expect(emulator.actions.activations()).toHaveLength(0);
    });

    it('answers 504/510 when the action outlives the deadline, without repeating it', async () => {
      // The function's time ends the call (1.5 s, less what it keeps back to answer): time
      // enough for the request to arrive on a loaded machine, and the action runs longer.
      const result = await fn.invoke(
        invokeEvent('slow', { body: '{"ms":3000}' }),
        lambdaContext(1500),
      );
      expect(result.statusCode).toBe(504);
      expect((jsonBody(result) as ErrorBody).error.errorCode).toBe('510');
      expect(sentTo(emulator)).toHaveLength(1);
    });

    it('passes an answer the endpoint made through, even when it looks like an envelope', async () => {
      emulator.faults.add({ kind: 'status', status: 429, errorCode: '400', origin: 'ENDPOINT' });
      const result = await fn.invoke(httpEvent('actions-invoke.json'), lambdaContext());
      expect(result.statusCode).toBe(429);
      expect(jsonBody(result)).toEqual({ error: { errorCode: '400', message: 'Quota Exceeded' } });
      expect(sentTo(emulator)).toHaveLength(1);
    });
  });

  describe('web actions', () => {
    it('forwards GET without a body and returns the action answer', async () => {
      const result = await fn.invoke(httpEvent('actions-web-get.json'), lambdaContext());
      expect(result.statusCode).toBe(200);
      expect(result.headers?.['content-type']).toMatch(/^application\/json/);
      expect(jsonBody(result)).toMatchObject({ method: 'get' });
      const [sent] = sentTo(emulator);
      expect(sent).toMatchObject({ method: 'GET', url: `${base}/echo?blocking=true&result=true` });
      expect(sent!.headers['content-type']).toBeUndefined();
    });

    it.each(['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'])(
      'forwards %s with its JSON body',
      async (method) => {
        const result = await fn.invoke(
          invokeEvent('echo', { method, body: '{"color":"blue"}' }),
          lambdaContext(),
        );
        expect(result.statusCode).toBe(200);
        expect(jsonBody(result)).toMatchObject({
          method: method.toLowerCase(),
          params: { color: 'blue' },
        });
      },
    );

    it('forwards HEAD', async () => {
      const result = await fn.invoke(
        httpEvent('actions-web-get.json', { method: 'HEAD' }),
        lambdaContext(),
      );
      expect(result.statusCode).toBe(200);
      expect(sentTo(emulator)[0]?.method).toBe('HEAD');
    });

    it("returns the action's binary answer byte for byte", async () => {
      const result = await fn.invoke(
        invokeEvent('echo', { body: '{"reply":"binary"}' }),
        lambdaContext(),
      );
      expect(result.statusCode).toBe(200);
      expect(result.headers?.['content-type']).toBe('application/octet-stream');
      expect(result.isBase64Encoded).toBe(true);
      expect(Buffer.from(result.body ?? '', 'base64').equals(ECHO_BINARY_BODY)).toBe(true);
    });

    it("returns the action's own status and text unchanged", async () => {
      const result = await fn.invoke(
        invokeEvent('echo', { body: '{"reply":"text","status":418}' }),
        lambdaContext(),
      );
      expect(result.statusCode).toBe(418);
      expect(result.headers?.['content-type']).toMatch(/^text\/plain/);
      expect(result.body).toBe('echo post /');
    });

    it("passes the action's own 401 through unchanged: it is the action's answer, not the operator's", async () => {
      const result = await fn.invoke(
        invokeEvent('echo', { body: '{"reply":"text","status":401}' }),
        lambdaContext(),
      );
      expect(result.statusCode).toBe(401);
      expect(result.headers?.['content-type']).toMatch(/^text\/plain/);
      expect(result.body).toBe('echo post /');
      expect(configurationErrorLines()).toEqual([]);
    });

    it('passes HTML an action answers through unchanged, with nothing of it allowed to run', async () => {
      const html = '<script>fetch("/jobs")</script>';
      emulator.faults.add({
        kind: 'status',
        status: 200,
        body: html,
        contentType: 'text/html; charset=UTF-8',
        origin: 'ENDPOINT',
      });
      const result = await fn.invoke(invokeEvent('echo', { body: '{}' }), lambdaContext());
      expect(result.statusCode).toBe(200);
      expect(result.headers?.['content-type']).toMatch(/^text\/html/);
      expect(result.body).toBe(html);
      expect(result.headers).toMatchObject({
        'x-content-type-options': 'nosniff',
        'content-security-policy': "default-src 'none'",
      });
    });

    it('refuses a body on GET, sending nothing', async () => {
      const result = await fn.invoke(
        httpEvent('actions-web-get.json', {
          body: '{}',
          headers: { 'content-type': 'application/json' },
        }),
        lambdaContext(),
      );
      expect(result.statusCode).toBe(400);
      expect(sentTo(emulator)).toHaveLength(0);
    });

    it('repeats a GET the gateway failed (it is safe to repeat)', async () => {
      emulator.faults.add({ kind: 'status', status: 503, match: { method: 'GET' } });
      const result = await fn.invoke(httpEvent('actions-web-get.json'), lambdaContext());
      expect(result.statusCode).toBe(200);
      expect(sentTo(emulator)).toHaveLength(2);
    });
  });

  describe('triggers', () => {
    it('fires the trigger and returns its 202 unchanged; its rule runs the action', async () => {
      const result = await fn.fire(httpEvent('triggers-fire.json'), lambdaContext());
      expect(result.statusCode).toBe(202);
      const { activationId } = jsonBody(result) as { activationId: string };
      expect(activationId).toMatch(/^[0-9a-f]{32}$/);
      expect(sentTo(emulator)[0]).toMatchObject({
        method: 'POST',
        url: `${base}/nightly?blocking=true&result=true`,
        body: '{"name":"Nightly run"}',
      });
      await vi.waitFor(() =>
        expect(emulator.actions.activations()).toEqual(
          expect.arrayContaining([
            expect.objectContaining({ kind: 'trigger', name: 'nightly' }),
            expect.objectContaining({ kind: 'action', name: 'hello', cause: activationId }),
          ]),
        ),
      );
    });

    it('returns 204 for a trigger without active rules', async () => {
      const event = httpEvent('triggers-fire.json', {
        path: '/triggers/unused',
        pathParameters: { name: 'unused' },
      });
      const result = await fn.fire(event, lambdaContext());
      expect(result.statusCode).toBe(204);
    });

    it('refuses GET with 405 and Allow: POST, sending nothing', async () => {
      const result = await fn.fire(
        httpEvent('triggers-fire.json', { method: 'GET' }),
        lambdaContext(),
      );
      expect(result.statusCode).toBe(405);
      expect(result.headers?.Allow).toBe('POST');
      expect(sentTo(emulator)).toHaveLength(0);
    });

    it('answers 404/300 for an unknown trigger (an action of that name does not count)', async () => {
      const event = httpEvent('triggers-fire.json', {
        path: '/triggers/hello',
        pathParameters: { name: 'hello' },
      });
      const result = await fn.fire(event, lambdaContext());
      expect(result.statusCode).toBe(404);
      expect((jsonBody(result) as ErrorBody).error.errorCode).toBe('300');
      expect(sentTo(emulator)).toHaveLength(0);
    });

    it('does not repeat a fire the gateway failed', async () => {
      emulator.faults.add({ kind: 'status', status: 504 });
      const result = await fn.fire(httpEvent('triggers-fire.json'), lambdaContext());
      expect(result.statusCode).toBe(504);
      expect((jsonBody(result) as ErrorBody).error.errorCode).toBe('510');
      expect(sentTo(emulator)).toHaveLength(1);
    });
  });
});
