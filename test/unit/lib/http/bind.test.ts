import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import * as z from 'zod/mini';
import { createLogger } from '../../../../lib/core/log.ts';
import type * as BindModule from '../../../../lib/http/bind.ts';
import { bind, type HandlerOf } from '../../../../lib/http/bind.ts';
import { jsonBody as jsonBodyStep } from '../../../../lib/http/middleware/json-body.ts';
import { pathParams } from '../../../../lib/http/middleware/path-params.ts';
import type * as PartsModule from '../../../../lib/http/parts.ts';
import { json } from '../../../../lib/http/responses.ts';
import { defineRoute, type Route, type RouteAccess } from '../../../../lib/http/routes/route.ts';
import { serviceRoutes } from '../../../../lib/http/routes/service.ts';
import type * as RuntimeModule from '../../../../lib/runtime.ts';
import { httpEvent, jsonBody, lambdaContext } from '../../../helpers/lambda.ts';
import { captureLogLines } from '../../../helpers/logs.ts';
import { coldStartWith, DEMO_TOKENS } from './fresh-runtime.ts';

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

/** The steps that read its input, as its function would bind them. */
const echoSteps = { jsonBody: jsonBodyStep, pathParams };

const echoEvent = (changes: Parameters<typeof httpEvent>[1] = {}) =>
  httpEvent('jobs-search.json', {
    body: '{"n":1}',
    pathParameters: { id: '42' },
    headers: { authorization: undefined },
    ...changes,
  });

describe('bind, a route that needs no caller', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('will not bind a route that needs a caller without its caller check', () => {
    // @ts-expect-error: the route's type asks for its caller's parts
    expect(() => bind(serviceRoutes.usage, async () => json(200, {}))).toThrow(
      'usage needs a caller check',
    );
  });

  it('runs the handler with no caller and no token, on the validated input', async () => {
    const bound = bind(
      echoRoute,
      async (request) =>
        json(200, { body: request.body, path: request.path, caller: request.caller ?? null }),
      echoSteps,
    );
    expect(bound.route).toBe(echoRoute);
    const result = await bound(echoEvent(), lambdaContext());
    expect(jsonBody(result)).toEqual({ body: { n: 1 }, path: { id: '42' }, caller: null });
  });

  it('checks the input over the same stack as every route', async () => {
    let runs = 0;
    const bound = bind(
      echoRoute,
      async () => {
        runs += 1;
        return json(200, {});
      },
      echoSteps,
    );
    const result = await bound(echoEvent({ pathParameters: { id: 'x' } }), lambdaContext());
    expect(result.statusCode).toBe(400);
    expect(runs).toBe(0);
  });

  it("logs on the logger it is handed, under the route's function", async () => {
    const lines: string[] = [];
    const bound = bind(echoRoute, async () => json(200, {}), {
      ...echoSteps,
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
    const bound = bind(echoRoute, async () => json(200, {}), echoSteps);
    await bound(echoEvent(), lambdaContext());
    expect(lines.map((line) => JSON.parse(line))).toEqual([
      expect.objectContaining({ function: 'echoFunction', message: 'request' }),
    ]);
  });
});

const route = (access: RouteAccess) =>
  defineRoute({
    function: 'testFunction',
    id: 'testRoute',
    method: 'POST',
    path: '/jobs/search',
    access,
    summary: 'a route of the test',
    tag: 'test',
  });

const event = (authorization?: string) =>
  httpEvent('jobs-search.json', { headers: { authorization } });

/**
 * The binder and the runtime of one cold start; `callerRoute` binds a route with the parts a
 * caller route takes (its caller check, and its usage check when it spends).
 */
async function coldStart(env: Record<string, string> = {}) {
  coldStartWith(env);
  const { bind } = (await import('../../../../lib/http/bind.ts')) as typeof BindModule;
  const { admissionOf, callerParts } = (await import(
    '../../../../lib/http/parts.ts'
  )) as typeof PartsModule;
  const { getRuntime } = (await import('../../../../lib/runtime.ts')) as typeof RuntimeModule;
  const callerRoute = (route: Route, handler: HandlerOf<Route>) => {
    const runtime = getRuntime();
    return bind(route, handler, { ...callerParts(runtime), admission: admissionOf(runtime) });
  };
  return { bind, callerRoute, getRuntime };
}

describe('bind, a route that needs a caller', () => {
  let lines: string[];
  beforeEach(() => {
    lines = captureLogLines();
  });
  afterEach(() => {
    vi.restoreAllMocks();
    vi.unstubAllEnvs();
  });

  it('will not bind a route that spends without its usage check', async () => {
    const { bind, getRuntime } = await coldStart();
    const { callerParts } = (await import('../../../../lib/http/parts.ts')) as typeof PartsModule;
    const spending = defineRoute({
      ...route({ scope: 'jobs:read' }),
      spends: () => ({ requests: 1 }),
    });
    const parts = callerParts(getRuntime());
    const handler = async () => ({ statusCode: 200 });
    // @ts-expect-error: the route's type asks for its admission
    expect(() => bind(spending, handler, parts)).toThrow("testRoute needs its caller's plans");
  });

  it("hands the handler the request of a caller holding the route's scope, and the container's runtime", async () => {
    const { callerRoute, getRuntime } = await coldStart();
    let seen: { caller: unknown; runtime: unknown } | undefined;
    const bound = callerRoute(route({ scope: 'jobs:read' }), async (request, runtime) => {
      seen = { caller: request.caller, runtime };
      return { statusCode: 200, body: '{}' };
    });
    expect(bound.route.id).toBe('testRoute');
    const result = await bound(event(`Bearer ${DEMO_TOKENS.reporting}`), lambdaContext());
    expect(result.statusCode).toBe(200);
    expect(seen?.caller).toMatchObject({ id: 'demo-reporting', scopes: ['jobs:read'] });
    expect(seen?.runtime).toBe(getRuntime());
  });

  it('finds callers in the secret: an unknown token is 401/200, a caller without the scope 403/210, and the handler never runs', async () => {
    const { callerRoute } = await coldStart();
    let runs = 0;
    const bound = callerRoute(route({ scope: 'jobs:cancel' }), async () => {
      runs += 1;
      return { statusCode: 200 };
    });
    const unknown = await bound(event('Bearer not-a-known-token-000000000000000'), lambdaContext());
    expect(unknown.statusCode).toBe(401);
    expect(jsonBody(unknown)).toMatchObject({ error: { errorCode: '200' } });
    const narrow = await bound(event(`Bearer ${DEMO_TOKENS.reporting}`), lambdaContext());
    expect(narrow.statusCode).toBe(403);
    expect(jsonBody(narrow)).toMatchObject({ error: { errorCode: '210' } });
    expect(runs).toBe(0);
  });

  it("admits a route that reaches the platform against the caller's plans: the answer carries its RateLimit fields", async () => {
    const { callerRoute } = await coldStart();
    const spending = { ...route({ scope: 'jobs:read' }), spends: () => ({ requests: 1 }) };
    const bound = callerRoute(spending, async () => ({ statusCode: 200, body: '{}' }));
    const metered = await bound(event(`Bearer ${DEMO_TOKENS.metered}`), lambdaContext());
    expect(metered.statusCode).toBe(200);
    expect(metered.headers?.['RateLimit-Policy']).toContain('q=5');
    expect(metered.headers?.RateLimit).toBeDefined();
    // A route that reaches nothing of the platform is held by no plan.
    const free = callerRoute(route({ scope: 'jobs:read' }), async () => ({ statusCode: 200 }));
    const unmetered = await free(event(`Bearer ${DEMO_TOKENS.metered}`), lambdaContext());
    expect(unmetered.headers?.['RateLimit-Policy']).toBeUndefined();
  });

  it('lets any known caller call a route open to every caller', async () => {
    const { callerRoute } = await coldStart();
    const bound = callerRoute(route('caller'), async () => ({ statusCode: 204 }));
    expect((await bound(event(`Bearer ${DEMO_TOKENS.echo}`), lambdaContext())).statusCode).toBe(
      204,
    );
    expect((await bound(event(), lambdaContext())).statusCode).toBe(401);
  });

  it("logs each request on the function's logger, under the route's function, with the caller's id", async () => {
    const { callerRoute } = await coldStart();
    const bound = callerRoute(route('caller'), async () => ({ statusCode: 200 }));
    await bound(event(`Bearer ${DEMO_TOKENS.all}`), lambdaContext());
    const requestLine = lines.map((line) => JSON.parse(line)).find((l) => l.message === 'request');
    expect(requestLine).toMatchObject({ function: 'testFunction', caller: 'demo', status: 200 });
  });

  it("reads callers from the JWT authorizer's claims when deployed with an issuer, not from the secret", async () => {
    const issuer = 'https://issuer.example.com/';
    const { callerRoute } = await coldStart({ JWT_ISSUER_URL: issuer });
    const bound = callerRoute(route({ scope: 'jobs:read' }), async (request) => ({
      statusCode: 200,
      body: JSON.stringify(request.caller),
    }));
    const withClaims = event();
    (withClaims.requestContext as unknown as Record<string, unknown>).authorizer = {
      jwt: { claims: { iss: issuer, sub: 'svc-reports', scope: 'jobs:read' } },
    };
    const result = await bound(withClaims, lambdaContext());
    expect(jsonBody(result)).toMatchObject({ id: 'svc-reports', scopes: ['jobs:read'] });
    expect((await bound(event(`Bearer ${DEMO_TOKENS.all}`), lambdaContext())).statusCode).toBe(401);
  });

  it('fails when it is bound, at cold start, when the configuration is bad', async () => {
    const { callerRoute } = await coldStart({ SECRETS_SOURCE: 'nowhere' });
    expect(() => callerRoute(route('caller'), async () => ({ statusCode: 200 }))).toThrow(
      /SECRETS_SOURCE/,
    );
  });
});
