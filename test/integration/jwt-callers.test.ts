/**
 * Deployed with a JWT issuer, the functions take the caller from the claims API Gateway's JWT
 * authorizer passes them (`requestContext.authorizer.jwt.claims`, the scopes in `scope`), and
 * read no callers from the secret: the real handlers over loopback against the emulator.
 */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { demoSecretFor, type Emulator } from '../../emulator/index.ts';
import { routes } from '../../lib/http/routes/index.ts';
import { startTestEmulator } from '../helpers/emulator.ts';
import { jsonBody, lambdaContext } from '../helpers/lambda.ts';
import { captureLogLines } from '../helpers/logs.ts';
import { emulatorEnv, loadHandlers, secretFile } from '../helpers/platform.ts';
import { MODULES, validEvent } from '../helpers/route-requests.ts';

const ISSUER = 'https://issuer.example.com/pool-1';

/** A route's valid request as API Gateway passes it after its JWT authorizer: claims, no token check. */
function withClaims(routeId: string, claims: Record<string, unknown> | undefined) {
  const route = routes.find((r) => r.id === routeId)!;
  const event = validEvent(route, 'Bearer eyJ.a.jwt');
  (
    event.requestContext as APIGatewayProxyEventV2['requestContext'] & { authorizer?: unknown }
  ).authorizer = claims ? { jwt: { claims, scopes: null } } : undefined;
  return { route, event };
}

describe('JWT callers, as API Gateway passes them to the functions', () => {
  let emulator: Emulator;
  let fn: Record<
    string,
    (
      e: APIGatewayProxyEventV2,
      c: ReturnType<typeof lambdaContext>,
    ) => Promise<{ statusCode?: number; body?: string }>
  >;
  let lines: string[];

  beforeAll(async () => {
    emulator = await startTestEmulator();
    // A secret with no callers at all: none is read.
    const { callers: _none, ...secret } = demoSecretFor(emulator.url);
    const file = await secretFile(secret);
    fn = await loadHandlers(emulatorEnv(emulator, { SECRETS_FILE: file, JWT_ISSUER_URL: ISSUER }), {
      listJobs: MODULES.listJobs!,
      stopJob: MODULES.stopJob!,
      invokeAction: MODULES.invokeAction!,
    });
  });
  beforeEach(() => {
    emulator.reset();
    lines = captureLogLines();
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });
  afterAll(async () => {
    await emulator.close();
  });

  const call = async (routeId: string, claims: Record<string, unknown> | undefined) => {
    const { route, event } = withClaims(routeId, claims);
    return fn[route.function]!(event, lambdaContext());
  };

  it('lets a caller with the scope through, named by sub (or client_id) on its log line', async () => {
    const result = await call('listJobs', { iss: ISSUER, sub: 'reporting', scope: 'jobs:read' });
    expect(result.statusCode).toBe(200);
    const request = lines.map((l) => JSON.parse(l)).find((l) => l.message === 'request');
    expect(request).toMatchObject({ caller: 'reporting', Caller: 'reporting', CallerRequests: 1 });
    const byClient = await call('listJobs', {
      iss: ISSUER,
      client_id: 'dashboard',
      scope: 'jobs:read',
    });
    expect(byClient.statusCode).toBe(200);
  });

  it("grants nothing for a JWT's * scope unless the stage allows it (JWT_ALLOW_STAR_SCOPE)", async () => {
    const claims = { iss: ISSUER, sub: 'admin', scope: '*' };
    const refused = await call('listJobs', claims);
    expect(refused.statusCode).toBe(403);
    expect(jsonBody(refused as never)).toMatchObject({
      error: { errorCode: '210', details: 'This caller lacks the scope "jobs:read".' },
    });
    expect(emulator.requests).toHaveLength(0);
    const { callers: _none, ...secret } = demoSecretFor(emulator.url);
    const allowing = await loadHandlers(
      emulatorEnv(emulator, {
        SECRETS_FILE: await secretFile(secret),
        JWT_ISSUER_URL: ISSUER,
        JWT_ALLOW_STAR_SCOPE: 'true',
      }),
      { listJobs: MODULES.listJobs! },
    );
    const { event } = withClaims('listJobs', claims);
    expect((await allowing.listJobs(event, lambdaContext())).statusCode).toBe(200);
  });

  it('refuses a caller without the scope with 403/210, nothing sent', async () => {
    const result = await call('stopJob', { iss: ISSUER, sub: 'reporting', scope: 'jobs:read' });
    expect(result.statusCode).toBe(403);
    expect(jsonBody(result as never)).toMatchObject({ error: { errorCode: '210' } });
    expect(emulator.requests).toHaveLength(0);
  });

  it('checks a scope built from the path: actions:echo runs echo, not hello', async () => {
    const claims = { iss: ISSUER, sub: 'echo-bot', scope: 'actions:echo' };
    const echo = withClaims('invokeAction', claims);
    echo.event.pathParameters = { name: 'echo' };
    echo.event.rawPath = '/actions/echo';
    expect((await fn.invokeAction!(echo.event, lambdaContext())).statusCode).toBe(200);
    const hello = await call('invokeAction', claims);
    expect(hello.statusCode).toBe(403);
    expect(emulator.actions.activations().map((a) => a.name)).toEqual(['echo']);
  });

  it('refuses no claims, claims of another issuer, or no id with 401/200', async () => {
    for (const claims of [
      undefined,
      { iss: 'https://other.example.com', sub: 'x', scope: '*' },
      { iss: ISSUER, scope: '*' },
    ]) {
      const result = await call('listJobs', claims);
      expect(result.statusCode).toBe(401);
      expect(jsonBody(result as never)).toMatchObject({ error: { errorCode: '200' } });
    }
    expect(emulator.requests).toHaveLength(0);
  });
});
