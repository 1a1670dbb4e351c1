import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type * as CallerRouteModule from '../../../../lib/http/caller-route.ts';
import { defineRoute, type RouteAccess } from '../../../../lib/http/routes/route.ts';
import { serviceRoutes } from '../../../../lib/http/routes/service.ts';
import type * as RuntimeModule from '../../../../lib/runtime.ts';
import { httpEvent, jsonBody, lambdaContext } from '../../../helpers/lambda.ts';
import { captureLogLines } from '../../../helpers/logs.ts';
import { coldStartWith, DEMO_TOKENS } from './fresh-runtime.ts';

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

/** callerRoute and the runtime of one cold start. */
async function coldStart(env: Record<string, string> = {}) {
  coldStartWith(env);
  const { callerRoute } = (await import(
    '../../../../lib/http/caller-route.ts'
  )) as typeof CallerRouteModule;
  const { getRuntime } = (await import('../../../../lib/runtime.ts')) as typeof RuntimeModule;
  return { callerRoute, getRuntime };
}

describe('callerRoute', () => {
  let lines: string[];
  beforeEach(() => {
    lines = captureLogLines();
  });
  afterEach(() => {
    vi.restoreAllMocks();
    vi.unstubAllEnvs();
  });

  it('will not bind a route that needs no caller', async () => {
    const { callerRoute } = await coldStart();
    expect(() => callerRoute(serviceRoutes.health, async () => ({ statusCode: 200 }))).toThrow(
      'health needs no caller: use publicRoute',
    );
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
