/**
 * Named, scoped callers on every route, through the real handlers and middy stack, over
 * loopback against the emulator: a caller without the route's scope gets 403/`210` and nothing
 * reaches the upstream (counted at the emulator), a caller holding only that scope gets 200, an
 * expired caller 401; the caller's id is on the request's log lines and no token is in any log
 * line or answer. Half the callers are given to the secret by their token's digest only
 * (`tokenSha256`), as `npm run new-caller` makes them.
 */
import { createHash } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { demoSecretFor, type Emulator } from '../../emulator/index.ts';
import { scopeOfRequest, scopesGranting } from '../../lib/core/scopes.ts';
import { docsOf } from '../../lib/http/routes/docs/index.ts';
import { routes } from '../../lib/http/routes/index.ts';
import type { Route } from '../../lib/http/routes/route.ts';
import { startTestEmulator } from '../helpers/emulator.ts';
import { type HttpHandler, jsonBody, lambdaContext } from '../helpers/lambda.ts';
import { captureLogLines } from '../helpers/logs.ts';
import { emulatorEnv, loadHandlers, secretFile } from '../helpers/platform.ts';
import { MODULES, VALID, validEvent } from '../helpers/route-requests.ts';

type ErrorBody = { error: { errorCode: string; message: string; details?: unknown } };

/** The scope a route's valid request needs (`actions:{name}` with the valid request's name). */
function scopeOf(route: Route): string | undefined {
  if (typeof route.access !== 'object') return undefined;
  return scopeOfRequest(route.access.scope, VALID[`${route.method} ${route.path}`]?.path);
}

const scoped = routes.filter((route) => scopeOf(route) !== undefined);
const scopes = [...new Set(scoped.map((route) => scopeOf(route)!))];
const idOf = (kind: string, scope: string) => `${kind}-${scope.replace(/[:*]/g, '_')}`;
const tokenOf = (id: string) => `token-of-${id}`.padEnd(40, '0');

/** For every scope a caller holding only it, and one holding every other scope but not it. */
const callers = [
  ...scopes.map((scope) => ({ id: idOf('only', scope), scopes: [scope] })),
  ...scopes.map((scope) => ({
    id: idOf('all-but', scope),
    scopes: scopes.filter((other) => !scopesGranting(scope).includes(other)),
  })),
  { id: 'expired', scopes: ['*'], notAfter: '2021-03-04T05:06:07Z' },
  { id: 'nothing-here', scopes: ['triggers:unused'] },
].map((caller) => ({ ...caller, token: tokenOf(caller.id) }));
const bearer = (id: string) => `Bearer ${tokenOf(id)}`;
/** The secret's entries: the callers holding one scope by their token's SHA-256 only. */
const entries = callers.map(({ token, ...caller }) =>
  caller.id.startsWith('only-')
    ? { ...caller, tokenSha256: createHash('sha256').update(token).digest('hex') }
    : { ...caller, token },
);

describe('named, scoped callers on every route', () => {
  let emulator: Emulator;
  let fn: Record<string, HttpHandler>;
  let lines: string[];
  const answers: string[] = [];

  /** What reached the emulator: gateway requests and action or trigger activations. */
  const upstreamCalls = () => emulator.requests.length + emulator.actions.activations().length;

  beforeAll(async () => {
    emulator = await startTestEmulator();
    const secret = { ...demoSecretFor(emulator.url), callers: entries };
    const file = await secretFile(secret);
    fn = await loadHandlers(emulatorEnv(emulator, { SECRETS_FILE: file }), MODULES);
  });
  beforeEach(() => {
    emulator.reset();
    lines = captureLogLines();
  });
  afterEach(() => {
    // No caller's token in any log line or answer of any test.
    for (const text of [...lines, ...answers.splice(0)]) {
      for (const caller of callers) expect(text).not.toContain(caller.token);
    }
    vi.restoreAllMocks();
  });
  afterAll(async () => {
    await emulator.close();
  });

  const call = async (route: Route, authorization: string | undefined) => {
    const event = validEvent(route, authorization);
    await withLiveCaptchaKey(route, event);
    const result = await fn[route.function]!(event, lambdaContext());
    answers.push(JSON.stringify(result));
    return result;
  };

  /**
   * A CAPTCHA image, audio or comparison needs a key the emulator issued (and its answer): one
   * is asked for with the emulator's own gateway credentials, then forgotten by the request log.
   */
  const withLiveCaptchaKey = async (route: Route, event: ReturnType<typeof validEvent>) => {
    const kind = /^\/captcha\/(image|audio)(\/verify)?$/.exec(route.path);
    if (!kind) return;
    const keyRoute = routes.find((r) => r.path === `/captcha/${kind[1]}/key`)!;
    const issued = await fn[keyRoute.function]!(
      validEvent(keyRoute, bearer(idOf('only', 'catalogue:captcha'))),
      lambdaContext(),
    );
    const { key } = jsonBody(issued) as { key: string };
    if (kind[2]) {
      const value = emulator.catalogue.captchaAnswer(key);
      event.body = JSON.stringify({ key, value });
    } else event.rawQueryString = `key=${key}`;
    emulator.requests.length = 0;
  };

  /**
   * The statuses the registry documents as the route's success (202 for a trigger), and 200
   * where the answer is the endpoint's own (an action's).
   */
  const successOf = (route: Route) =>
    docsOf(route).responses.map((response) =>
      typeof response.status === 'number' ? response.status : 200,
    );

  it.each(scoped.map((route) => [`${route.method} ${route.path}`, route] as const))(
    '%s: 403/210 without its scope, nothing sent; its success with that scope alone',
    async (_key, route) => {
      const scope = scopeOf(route)!;
      const refused = await call(route, bearer(idOf('all-but', scope)));
      expect(refused.statusCode).toBe(403);
      expect(jsonBody(refused)).toEqual({
        error: {
          errorCode: '210',
          message: 'Permission Denied',
          details: `This caller lacks the scope "${scope}".`,
        },
      });
      expect(upstreamCalls()).toBe(0);

      const allowed = await call(route, bearer(idOf('only', scope)));
      expect(successOf(route), allowed.body).toContain(allowed.statusCode);
      expect(upstreamCalls()).toBeGreaterThan(0);

      const requestLines = lines
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter(
          (line) => line.message === 'request' && line.route === `${route.method} ${route.path}`,
        );
      expect(requestLines.map((line) => [line.caller, line.status])).toEqual([
        [idOf('all-but', scope), 403],
        [idOf('only', scope), allowed.statusCode],
      ]);
      // The per-caller metric rides on the request line: who called which route.
      expect(requestLines[1]).toMatchObject({
        Caller: idOf('only', scope),
        Route: `${route.method} ${route.path}`,
        CallerRequests: 1,
      });
    },
  );

  it.each(
    routes
      .filter((route) => route.access !== 'public')
      .map((route) => [`${route.method} ${route.path}`, route] as const),
  )(
    '%s: 401/200 for an expired caller, an unknown token, none or not a bearer token, saying which, nothing sent',
    async (_k, route) => {
      // An expired token and an unknown one get the same answer: it never tells which exist.
      const rejected = 'The bearer token is unknown or has expired.';
      const bearerHint = 'send "Authorization: Bearer <token>".';
      for (const [authorization, details] of [
        [bearer('expired'), rejected],
        [`Bearer ${tokenOf('unknown')}`, rejected],
        [undefined, `No Authorization header: ${bearerHint}`],
        [
          `Basic ${Buffer.from('user:pass').toString('base64')}`,
          `The Authorization header is not a bearer token: ${bearerHint}`,
        ],
        ['Bearer', `The Authorization header is not a bearer token: ${bearerHint}`],
      ] as const) {
        const result = await call(route, authorization);
        expect(result.statusCode).toBe(401);
        expect((jsonBody(result) as ErrorBody).error).toEqual({
          errorCode: '200',
          message: 'Authentication Failed',
          details,
        });
      }
      expect(upstreamCalls()).toBe(0);
    },
  );

  it('lets actions:echo run echo, and not hello', async () => {
    const action = routes.find((route) => route.id === 'invokeAction')!;
    const event = (name: string) => {
      const e = validEvent(action, bearer(idOf('only', 'actions:hello')));
      e.headers.authorization = `Bearer ${tokenOf('echo-only')}`;
      e.rawPath = `/actions/${name}`;
      e.pathParameters = { name };
      return e;
    };
    const file = await secretFile({
      ...demoSecretFor(emulator.url),
      callers: [{ id: 'echo-only', token: tokenOf('echo-only'), scopes: ['actions:echo'] }],
    });
    const own = await loadHandlers(emulatorEnv(emulator, { SECRETS_FILE: file }), {
      invoke: MODULES.invokeAction!,
    });
    const echo = await own.invoke(event('echo'), lambdaContext());
    expect(echo.statusCode).toBe(200);
    const hello = await own.invoke(event('hello'), lambdaContext());
    expect(hello.statusCode).toBe(403);
    expect(emulator.actions.activations().map((activation) => activation.name)).toEqual(['echo']);
  });

  it('serves the OpenAPI document to any known caller', async () => {
    const openapi = routes.find((route) => route.id === 'openapi')!;
    expect((await call(openapi, bearer('nothing-here'))).statusCode).toBe(200);
  });

  it('still takes callerTokens (each a caller with scope *), saying at cold start that it is deprecated', async () => {
    const legacy = tokenOf('legacy');
    const file = await secretFile({ ...demoSecretFor(emulator.url), callerTokens: [legacy] });
    const own = await loadHandlers(emulatorEnv(emulator, { SECRETS_FILE: file }), {
      stop: MODULES.stopJob!,
    });
    const stop = routes.find((route) => route.id === 'stopJob')!;
    const result = await own.stop(validEvent(stop, `Bearer ${legacy}`), lambdaContext());
    expect(result.statusCode).toBe(200);
    const parsed = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(
      parsed.filter((line) => String(line.message).startsWith('callerTokens is deprecated')),
    ).toHaveLength(1);
    expect(parsed.find((line) => line.message === 'request')?.caller).toBe('callerTokens.0');
    for (const line of lines) expect(line).not.toContain(legacy);
  });
});
