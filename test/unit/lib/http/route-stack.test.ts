import { describe, expect, it, vi } from 'vitest';
import * as z from 'zod/mini';
import { ServiceError } from '../../../../lib/core/errors.ts';
import type { Logger } from '../../../../lib/core/log.ts';
import { createLogger } from '../../../../lib/core/log.ts';
import { secretCallers } from '../../../../lib/http/callers.ts';
import { MAX_BODY_BYTES } from '../../../../lib/http/middleware/body-limit.ts';
import { jsonBody as jsonBodyStep } from '../../../../lib/http/middleware/json-body.ts';
import { pathParams } from '../../../../lib/http/middleware/path-params.ts';
import { queryOf } from '../../../../lib/http/query.ts';
import { json } from '../../../../lib/http/responses.ts';
import { type RouteHandler, routeStack } from '../../../../lib/http/route-stack.ts';
import { defineRoute, type RouteAccess } from '../../../../lib/http/routes/route.ts';
import { httpEvent, jsonBody, lambdaContext } from '../../../helpers/lambda.ts';

function capturedLog() {
  const lines: string[] = [];
  return { lines, log: createLogger({ function: 'test' }, (line) => lines.push(line)) };
}

const GOOD = 'good-token-000000000000000000000000000';
const OTHER = 'other-token-00000000000000000000000000';
const READER = 'reader-token-0000000000000000000000000';

/** Callers of an in-memory secret, fetched just now. */
const testCallers = secretCallers({
  load: async () => ({
    value: {
      callers: [
        { id: 'good', token: GOOD, scopes: ['jobs:cancel'] },
        { id: 'reader', token: READER, scopes: ['jobs:read'] },
      ],
      callerTokens: [OTHER],
    },
    fetchedAt: Date.now(),
  }),
  maxAgeMs: 60_000,
  retryInMs: () => 0,
  now: Date.now,
});

const echoInput = {
  body: z.strictObject({ n: z.int().check(z.positive()), s: z.optional(z.string()) }),
  query: z.object({ mode: z.optional(z.enum(['a', 'b'])) }),
  path: z.object({ id: z.string().check(z.regex(/^[0-9]+$/)) }),
};

/** A route of the test's own, bound over the one stack. */
function testRoute(id: string, access: RouteAccess = 'public') {
  return defineRoute({
    function: id,
    id,
    method: 'POST',
    path: '/echo/{id}',
    access,
    summary: id,
    tag: 'test',
  });
}

/** A public route's stack with the test's logger. */
function publicStack(id: string, log: Logger, handler: RouteHandler<unknown, unknown, unknown>) {
  return routeStack(testRoute(id), { log }, handler);
}

function echoFunction(options: { onCall?: () => void } = {}) {
  const { lines, log } = capturedLog();
  const route = defineRoute({
    ...testRoute('echo', { scope: 'jobs:cancel' }),
    input: echoInput,
  });
  // With the steps that read its input, as its binding brings them (bind.ts).
  const steps = { jsonBody: jsonBodyStep, pathParams, queryOf };
  const handler = routeStack(route, { log, identify: testCallers, ...steps }, async (request) => {
    options.onCall?.();
    return json(200, { body: request.body, query: request.query, path: request.path });
  });
  return { handler, lines };
}

const validEvent = (changes: Parameters<typeof httpEvent>[1] = {}) =>
  httpEvent('jobs-search.json', {
    body: '{"n":3}',
    pathParameters: { id: '42' },
    query: 'mode=a',
    ...changes,
    headers: { authorization: `Bearer ${GOOD}`, ...changes.headers },
  });

describe('routeStack (the one middy stack)', () => {
  it('hands validated body, query and path to the handler', async () => {
    const { handler } = echoFunction();
    const result = await handler(validEvent(), lambdaContext());
    expect(result.statusCode).toBe(200);
    expect(jsonBody(result)).toEqual({ body: { n: 3 }, query: { mode: 'a' }, path: { id: '42' } });
  });

  const missing = 'No Authorization header: send "Authorization: Bearer <token>".';
  const notBearer =
    'The Authorization header is not a bearer token: send "Authorization: Bearer <token>".';
  const rejected = 'The bearer token is unknown or has expired.';
  it.each([
    ['no Authorization header', undefined, missing],
    ['a wrong token', 'Bearer bad-token', rejected],
    ['another scheme', `Basic ${Buffer.from(GOOD).toString('base64')}`, notBearer],
    ['an empty bearer', 'Bearer ', notBearer],
    ['a token prefix', `Bearer ${GOOD.slice(0, -1)}`, rejected],
    ['a token and more', `Bearer ${GOOD}x`, rejected],
  ])(
    'refuses %s with 401/200, says what was wrong, and calls nothing',
    async (_case, authorization, details) => {
      let called = false;
      const { handler } = echoFunction({ onCall: () => (called = true) });
      const result = await handler(validEvent({ headers: { authorization } }), lambdaContext());
      expect(result.statusCode).toBe(401);
      expect(jsonBody(result)).toEqual({
        error: { errorCode: '200', message: 'Authentication Failed', details },
      });
      expect(called).toBe(false);
    },
  );

  it('accepts a caller with the scope, and a token of callerTokens (scope *)', async () => {
    const { handler } = echoFunction();
    for (const token of [GOOD, OTHER]) {
      const result = await handler(
        validEvent({ headers: { authorization: `Bearer ${token}` } }),
        lambdaContext(),
      );
      expect(result.statusCode).toBe(200);
    }
  });

  it('refuses a known caller without the scope with 403/210, before reading the body', async () => {
    let called = false;
    const { handler } = echoFunction({ onCall: () => (called = true) });
    const result = await handler(
      validEvent({ headers: { authorization: `Bearer ${READER}` }, body: '{"n":' }),
      lambdaContext(),
    );
    expect(result.statusCode).toBe(403);
    expect(jsonBody(result)).toEqual({
      error: {
        errorCode: '210',
        message: 'Permission Denied',
        details: 'This caller lacks the scope "jobs:cancel".',
      },
    });
    expect(called).toBe(false);
  });

  it("puts the caller's id on the request's log line, counts it, and never logs its token", async () => {
    const { handler, lines } = echoFunction();
    const console = vi.spyOn(globalThis.console, 'log').mockImplementation(() => {});
    try {
      await handler(validEvent(), lambdaContext());
      await handler(
        validEvent({ headers: { authorization: `Bearer ${READER}` } }),
        lambdaContext(),
      );
    } finally {
      console.mockRestore();
    }
    const [allowed, refused] = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(allowed).toMatchObject({
      message: 'request',
      caller: 'good',
      status: 200,
      Caller: 'good',
      Route: 'POST /echo/{id}',
      CallerRequests: 1,
    });
    expect(refused).toMatchObject({ caller: 'reader', status: 403, CallerRequests: 1 });
    for (const line of lines) {
      for (const token of [GOOD, READER, OTHER]) expect(line).not.toContain(token);
    }
  });

  it('will not build a route that needs a caller without a way to find it', () => {
    expect(() =>
      routeStack(testRoute('open', 'caller'), capturedLog(), async () => json(200, {})),
    ).toThrow('open needs a caller check');
  });

  it.each([
    ['malformed JSON', { body: '{"n":' }, 'body'],
    ['a wrong Content-Type', { headers: { 'content-type': 'text/plain' } }, 'headers.content-type'],
    ['no body', { body: undefined }, 'body'],
    ['a failed schema', { body: '{"n":-1}' }, 'body.n'],
    ['an unknown member', { body: '{"n":1,"pages":2}' }, 'body.pages'],
    ['a bad query value', { query: 'mode=c' }, 'query.mode'],
    ['a bad path parameter', { pathParameters: { id: 'x/y' } }, 'path.id'],
    ['no Content-Type', { headers: { 'content-type': undefined } }, 'headers.content-type'],
    ['the JSON number 0', { body: '0' }, 'body'],
    ['the JSON false', { body: 'false' }, 'body'],
    ['the JSON null', { body: 'null' }, 'body'],
    ['a JSON string', { body: '"text"' }, 'body'],
    ['a JSON array', { body: '[{"n":1}]' }, 'body'],
  ] as const)('answers %s with 400/100 and details', async (_case, changes, detailPath) => {
    let called = false;
    const { handler } = echoFunction({ onCall: () => (called = true) });
    const result = await handler(validEvent(changes), lambdaContext());
    expect(result.statusCode).toBe(400);
    const body = jsonBody(result) as { error: { errorCode: string; details: { path: string }[] } };
    expect(body.error.errorCode).toBe('100');
    expect(body.error.details.map((d) => d.path)).toContain(detailPath);
    expect(called).toBe(false);
  });

  it.each(['Application/JSON', 'application/json; charset=UTF-8', 'application/vnd.api+json'])(
    'takes a JSON body labelled %s',
    async (contentType) => {
      const { handler } = echoFunction();
      const result = await handler(
        validEvent({ headers: { 'content-type': contentType } }),
        lambdaContext(),
      );
      expect(result.statusCode).toBe(200);
    },
  );

  it('reads a base64-encoded JSON body', async () => {
    const { handler } = echoFunction();
    const body = Buffer.from('{"n":7,"s":"한글"}').toString('base64');
    const result = await handler(validEvent({ body, isBase64Encoded: true }), lambdaContext());
    expect(jsonBody(result)).toMatchObject({ body: { n: 7, s: '한글' } });
  });

  it('refuses a body over 10 MB with 413/430 before anything else', async () => {
    let called = false;
    const { handler } = echoFunction({ onCall: () => (called = true) });
    const big = `{"n":1,"s":"${'x'.repeat(MAX_BODY_BYTES)}"}`;
    const result = await handler(
      validEvent({ body: big, headers: { authorization: undefined } }),
      lambdaContext(),
    );
    expect(result.statusCode).toBe(413);
    expect((jsonBody(result) as { error: { errorCode: string } }).error.errorCode).toBe('430');
    expect(called).toBe(false);
  });

  it('counts base64 bodies by their decoded size', async () => {
    const { handler } = echoFunction();
    const atLimit = Buffer.alloc(MAX_BODY_BYTES, 0x20).toString('base64');
    const over = Buffer.alloc(MAX_BODY_BYTES + 1, 0x20).toString('base64');
    const under = await handler(
      validEvent({ body: atLimit, isBase64Encoded: true }),
      lambdaContext(),
    );
    expect(under.statusCode).toBe(400); // spaces are not JSON, but the size was accepted
    const refused = await handler(
      validEvent({ body: over, isBase64Encoded: true }),
      lambdaContext(),
    );
    expect(refused.statusCode).toBe(413);
  });

  it('answers in XML when the caller asks for it', async () => {
    const { handler } = echoFunction();
    const result = await handler(
      validEvent({ headers: { authorization: undefined, accept: 'text/xml' } }),
      lambdaContext(),
    );
    expect(result.statusCode).toBe(401);
    expect(result.headers?.['Content-Type']).toBe('text/xml');
    expect(result.body).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><result><error><errorCode>200</errorCode><message>Authentication Failed</message>' +
        '<details>No Authorization header: send &quot;Authorization: Bearer &lt;token&gt;&quot;.</details></error></result>',
    );
  });

  it('answers in XML when the caller sends XML', async () => {
    const { handler } = echoFunction();
    const result = await handler(
      validEvent({ headers: { 'content-type': 'application/xml' }, body: '<n>1</n>' }),
      lambdaContext(),
    );
    expect(result.statusCode).toBe(400);
    expect(result.headers?.['Content-Type']).toBe('text/xml');
    expect(result.body).toContain('<errorCode>100</errorCode>');
  });

  it('turns an unexpected failure into 500/900 with no stack, and logs it without one', async () => {
    const { lines, log } = capturedLog();
    const handler = publicStack('boom', log, async () => {
      throw new TypeError('secret detail at /var/task/index.mjs:1:2');
    });
    const result = await handler(validEvent(), lambdaContext());
    expect(result.statusCode).toBe(500);
    expect(jsonBody(result)).toEqual({ error: { errorCode: '900', message: 'Unexpected Error' } });
    expect(result.body).not.toContain('index.mjs');
    expect(lines.join('\n')).not.toMatch(/\n\s+at /);
    expect(lines.some((line) => line.includes('"errorName":"TypeError"'))).toBe(true);
  });

  it('passes a ServiceError through with its own status and code', async () => {
    const handler = publicStack('upstream', capturedLog().log, async () => {
      throw new ServiceError({
        status: 429,
        code: '420',
        message: 'Rate Limited',
        details: 'slow down',
      });
    });
    const result = await handler(validEvent(), lambdaContext());
    expect(result.statusCode).toBe(429);
    expect(jsonBody(result)).toEqual({
      error: { errorCode: '420', message: 'Rate Limited', details: 'slow down' },
    });
  });

  it('never logs the caller token or the body', async () => {
    const { handler, lines } = echoFunction();
    await handler(validEvent({ body: '{"n":5,"s":"private-text"}' }), lambdaContext());
    await handler(
      validEvent({ headers: { authorization: 'Bearer wrong-token-value' } }),
      lambdaContext(),
    );
    const logged = lines.join('\n');
    expect(logged).not.toContain('good-token');
    expect(logged).not.toContain('wrong-token-value');
    expect(logged).not.toContain('private-text');
    expect(lines).toHaveLength(2);
  });
});

describe('routeStack answers before the function times out', () => {
  it('answers 504/510 when the caller check hangs (a slow secret fetch)', async () => {
    const { log, lines } = capturedLog();
    const handler = routeStack(
      testRoute('stuck', 'caller'),
      { log, identify: () => new Promise(() => {}) },
      async () => json(200, {}),
    );
    const result = await handler(
      validEvent({ headers: { accept: 'text/xml' } }),
      lambdaContext(400),
    );
    expect(result.statusCode).toBe(504);
    expect(result.body).toContain('<errorCode>510</errorCode>');
    expect(lines.some((line) => line.includes('no answer before the function timeout'))).toBe(true);
  });

  it('answers 504/510 when the handler hangs', async () => {
    const handler = publicStack('stuck', capturedLog().log, () => new Promise(() => {}));
    const result = await handler(validEvent(), lambdaContext(300));
    expect(result.statusCode).toBe(504);
    expect(jsonBody(result)).toMatchObject({ error: { errorCode: '510' } });
  });
});

describe('routeStack log lines', () => {
  it('carry the level, cold start, trace id and API Gateway request id, and the metrics follow', async () => {
    const lines: string[] = [];
    const handler = publicStack(
      'logged',
      createLogger({ function: 'logged' }, (line) => lines.push(line)),
      async () => json(200, {}),
    );
    const header = 'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1';
    process.env._X_AMZN_TRACE_ID = 'Root=1-5759e988-bd862e3fe1be46a994272793;Sampled=1';
    try {
      await handler(validEvent({ headers: { 'x-amzn-trace-id': undefined } }), lambdaContext());
      await handler(validEvent({ headers: { 'x-amzn-trace-id': header } }), lambdaContext());
    } finally {
      delete process.env._X_AMZN_TRACE_ID;
    }
    const [first, second] = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(first).toMatchObject({
      level: 'info',
      message: 'request',
      traceId: 'Root=1-5759e988-bd862e3fe1be46a994272793;Sampled=1',
      apiRequestId: validEvent().requestContext.requestId,
      status: 200,
    });
    expect(typeof first?.coldStart).toBe('boolean');
    // The request's own trace header, where API Gateway passes one, not the process's variable.
    expect(second).toMatchObject({ traceId: header, coldStart: false });
  });

  it("write the request's metrics in its request line, and those that cannot share it on lines of their own", async () => {
    const lines: string[] = [];
    const handler = publicStack(
      'counted',
      createLogger({ function: 'counted' }, (line) => lines.push(line)),
      async ({ call: { metrics } }) => {
        metrics.count('UpstreamCalls', { Service: 'scan-jobs', Outcome: 'success' });
        metrics.count('UpstreamRetries', { Service: 'scan-jobs' }, 2);
        // A second outcome of the same metric needs a document of its own.
        metrics.count('UpstreamCalls', { Service: 'scan-jobs', Outcome: 'timeout' });
        return json(200, {});
      },
    );
    await handler(validEvent(), lambdaContext());
    const [request, own] = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toHaveLength(2);
    expect(request).toMatchObject({
      message: 'request',
      status: 200,
      Function: 'counted',
      Service: 'scan-jobs',
      Outcome: 'success',
      UpstreamCalls: 1,
      UpstreamRetries: 2,
      _aws: {
        CloudWatchMetrics: [{ Namespace: 'PlatformGateway' }, { Namespace: 'PlatformGateway' }],
      },
    });
    // The document that cannot share the line goes on its own, with the request's fields.
    expect(own).toMatchObject({
      message: 'metrics',
      requestId: request?.requestId,
      Outcome: 'timeout',
      UpstreamCalls: 1,
    });
  });
});
