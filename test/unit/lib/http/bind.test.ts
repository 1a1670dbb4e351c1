import { afterEach, describe, expect, it, vi } from 'vitest';
import * as z from 'zod/mini';
import { createLogger } from '../../../../lib/core/log.ts';
import { publicRoute } from '../../../../lib/http/public-route.ts';
import { json } from '../../../../lib/http/responses.ts';
import { defineRoute } from '../../../../lib/http/routes/route.ts';
import { serviceRoutes } from '../../../../lib/http/routes/service.ts';
import { httpEvent, jsonBody, lambdaContext } from '../../../helpers/lambda.ts';
import { captureLogLines } from '../../../helpers/logs.ts';

const echoRoute = defineRoute({
  function: 'echoFunction',
  id: 'echo',
  method: 'POST',
  path: '/echo/{id}',
  access: 'public',
  summary: 'echo',
  tag: 'test',
  input: {
    body: z.object({ n: z.number() }),
    path: z.object({ id: z.string().check(z.regex(/^[0-9]+$/)) }),
  },
});

const echoEvent = (changes: Parameters<typeof httpEvent>[1] = {}) =>
  httpEvent('jobs-search.json', {
    body: '{"n":1}',
    pathParameters: { id: '42' },
    headers: { authorization: undefined },
    ...changes,
  });

describe('publicRoute', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('will not bind a route that needs a caller', () => {
    expect(() => publicRoute(serviceRoutes.usage, async () => json(200, {}))).toThrow(
      'usage needs a caller: use callerRoute',
    );
  });

  it('runs the handler with no caller and no token, on the validated input', async () => {
    const bound = publicRoute(echoRoute, async (request) =>
      json(200, { body: request.body, path: request.path, caller: request.caller ?? null }),
    );
    expect(bound.route).toBe(echoRoute);
    const result = await bound(echoEvent(), lambdaContext());
    expect(jsonBody(result)).toEqual({ body: { n: 1 }, path: { id: '42' }, caller: null });
  });

  it('checks the input over the same stack as every route', async () => {
    let runs = 0;
    const bound = publicRoute(echoRoute, async () => {
      runs += 1;
      return json(200, {});
    });
    const result = await bound(echoEvent({ pathParameters: { id: 'x' } }), lambdaContext());
    expect(result.statusCode).toBe(400);
    expect(runs).toBe(0);
  });

  it("logs on the logger it is handed, under the route's function", async () => {
    const lines: string[] = [];
    const bound = publicRoute(echoRoute, async () => json(200, {}), {
      log: createLogger({ stage: 'test' }, (line) => lines.push(line)),
    });
    await bound(echoEvent(), lambdaContext());
    expect(JSON.parse(lines[0]!)).toMatchObject({
      stage: 'test',
      function: 'echoFunction',
      message: 'request',
      status: 200,
    });
  });

  it('logs to the console by default (Lambda ships it), loading no runtime', async () => {
    const lines = captureLogLines();
    const bound = publicRoute(echoRoute, async () => json(200, {}));
    await bound(echoEvent(), lambdaContext());
    expect(lines.map((line) => JSON.parse(line))).toEqual([
      expect.objectContaining({ function: 'echoFunction', message: 'request' }),
    ]);
  });
});
