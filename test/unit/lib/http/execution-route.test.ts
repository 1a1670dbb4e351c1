/**
 * The handler of the action and trigger routes, bound as the functions bind it, against a
 * loopback action the test scripts: what the caller sent reaches the action as sent, and the
 * action's answer comes back whole, with its activation id.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type * as ExecutionRouteModule from '../../../../lib/http/execution-route.ts';
import type { BoundRoute } from '../../../../lib/http/route-stack.ts';
import { functionRoutes } from '../../../../lib/http/routes/functions.ts';
import { httpEvent, jsonBody, lambdaContext } from '../../../helpers/lambda.ts';
import { captureLogLines } from '../../../helpers/logs.ts';
import { secretFile } from '../../../helpers/platform.ts';
import { type ScriptedServer, startScriptedServer } from '../../../helpers/scripted-server.ts';
import { coldStartWith } from './fresh-runtime.ts';

const TOKEN = 'execution-route-test-token-000000000000';

describe('executionRoute', () => {
  let action: ScriptedServer;
  let secretPath: string;
  let invoke: BoundRoute;
  let fire: BoundRoute;
  let lines: string[];

  beforeAll(async () => {
    action = await startScriptedServer();
    secretPath = await secretFile({
      actions: {
        plain: { url: `${action.url.href}fx/dev/plain` },
        page: { url: `${action.url.href}fx/dev/page`, web: true },
      },
      triggers: { nightly: { url: `${action.url.href}fx/dev/nightly` } },
      callers: [{ id: 'runner', token: TOKEN, scopes: ['actions:*', 'triggers:nightly'] }],
    });
  });
  afterAll(() => action.close());
  beforeEach(async () => {
    coldStartWith({ SECRETS_FILE: secretPath });
    const { executionRoute } = (await import(
      '../../../../lib/http/execution-route.ts'
    )) as typeof ExecutionRouteModule;
    // As the functions bind them (an answer too large to return would be handed off).
    invoke = executionRoute(functionRoutes.invokeAction);
    fire = executionRoute(functionRoutes.fireTrigger);
    action.received.length = 0;
    action.script = (_req, res) =>
      res
        .writeHead(201, {
          'content-type': 'application/json',
          'x-openwhisk-activation-id': 'act-0001',
          'x-other': 'dropped',
        })
        .end('{"ran":true}');
    lines = captureLogLines();
  });
  afterEach(() => {
    vi.restoreAllMocks();
    vi.unstubAllEnvs();
  });

  const event = (changes: Parameters<typeof httpEvent>[1]) =>
    httpEvent('jobs-search.json', {
      ...changes,
      headers: {
        authorization: `Bearer ${TOKEN}`,
        'content-type': 'application/json',
        ...changes?.headers,
      },
    });

  it("sends the caller's body to the action as received, and passes its answer back with the activation id", async () => {
    const body = Buffer.from('{"name":"한글"}').toString('base64');
    const result = await invoke(
      event({ pathParameters: { name: 'plain' }, body, isBase64Encoded: true }),
      lambdaContext(),
    );
    expect(result.statusCode).toBe(201);
    expect(result.headers).toMatchObject({
      'content-type': 'application/json',
      'x-openwhisk-activation-id': 'act-0001',
    });
    // Only the activation id of the action's own headers comes back.
    expect(result.headers?.['x-other']).toBeUndefined();
    expect(jsonBody(result)).toEqual({ ran: true });
    const sent = action.received[0]!;
    expect(sent.method).toBe('POST');
    expect(sent.url).toBe('/fx/dev/plain?blocking=true&result=true');
    expect(sent.body.toString('utf8')).toBe('{"name":"한글"}');
  });

  it("keeps a web action's method and the caller's result=false", async () => {
    await invoke(
      event({
        method: 'PUT',
        pathParameters: { name: 'page' },
        query: 'result=false',
        body: '[1]',
      }),
      lambdaContext(),
    );
    const sent = action.received[0]!;
    expect(sent.method).toBe('PUT');
    expect(sent.url).not.toContain('result=true');
  });

  it('fires a trigger the same way', async () => {
    const result = await fire(
      event({ pathParameters: { name: 'nightly' }, body: '{"n":1}' }),
      lambdaContext(),
    );
    expect(result.statusCode).toBe(201);
    expect(action.received[0]?.url).toMatch(/^\/fx\/dev\/nightly/);
  });

  it('names the action or trigger on the request line', async () => {
    await invoke(event({ pathParameters: { name: 'plain' }, body: '{}' }), lambdaContext());
    await fire(event({ pathParameters: { name: 'nightly' }, body: '{}' }), lambdaContext());
    const requests = lines.map((line) => JSON.parse(line)).filter((l) => l.message === 'request');
    expect(requests.map((l) => [l.action, l.trigger])).toEqual([
      ['plain', undefined],
      [undefined, 'nightly'],
    ]);
  });

  it('refuses a body the target cannot take, sending nothing', async () => {
    const result = await invoke(
      event({ pathParameters: { name: 'plain' }, body: '[1,2]' }),
      lambdaContext(),
    );
    expect(result.statusCode).toBe(400);
    expect(jsonBody(result)).toMatchObject({
      error: { errorCode: '100', details: [{ path: 'body' }] },
    });
    expect(action.received).toHaveLength(0);
  });

  it('answers 404/300 for a name the secret does not hold, sending nothing', async () => {
    const result = await invoke(
      event({ pathParameters: { name: 'missing' }, body: '{}' }),
      lambdaContext(),
    );
    expect(result.statusCode).toBe(404);
    expect(action.received).toHaveLength(0);
  });
});
