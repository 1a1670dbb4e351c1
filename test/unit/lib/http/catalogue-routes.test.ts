/**
 * A catalogue group in one function, bound as the catalogue functions bind it, against a
 * loopback catalogue the test scripts, with entries of the test's own.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import * as z from 'zod/mini';
import { defineEntry } from '../../../../lib/catalogue/entry.ts';
import type * as CatalogueRoutesModule from '../../../../lib/http/catalogue-routes.ts';
import { jsonBody as jsonBodyStep } from '../../../../lib/http/middleware/json-body.ts';
import { queryOf } from '../../../../lib/http/query.ts';
import { httpEvent, jsonBody, lambdaContext } from '../../../helpers/lambda.ts';
import { captureLogLines } from '../../../helpers/logs.ts';
import { type ScriptedServer, startScriptedServer } from '../../../helpers/scripted-server.ts';
import { coldStartWith, DEMO_TOKENS } from './fresh-runtime.ts';

const lookup = defineEntry<undefined, { q: string }>({
  id: 'testLookup',
  function: 'catalogueUtility',
  api: 'shorturl',
  method: 'GET',
  path: '/test/lookup',
  summary: 'a lookup of the test',
  upstream: { method: 'GET', paths: ['/test-lookup/v1/find'] },
  sends: 'query',
  answers: { kind: 'json-or-xml', contentTypes: ['application/json', 'text/xml'] },
  idempotent: true,
  query: z.strictObject({ q: z.string() }),
  toUpstream: ({ query }) => ({ params: [['q', query.q]] }),
});

const shorten = defineEntry<{ url: string }>({
  id: 'testShorten',
  function: 'catalogueUtility',
  api: 'trends',
  method: 'POST',
  path: '/test/shorten',
  summary: 'a POST of the test',
  upstream: { method: 'POST', paths: ['/test-shorten/v1/make'] },
  sends: 'json',
  answers: { kind: 'json', contentTypes: ['application/json'] },
  idempotent: false,
  body: z.strictObject({ url: z.string() }),
  toUpstream: ({ body }) => ({ json: { target: body.url } }),
});

describe('catalogueRoutes', () => {
  let catalogue: ScriptedServer;
  let handler: ReturnType<typeof CatalogueRoutesModule.catalogueRoutes>;

  beforeAll(async () => {
    catalogue = await startScriptedServer();
  });
  afterAll(() => catalogue.close());
  beforeEach(async () => {
    coldStartWith({ OPENAPI_BASE_URL: catalogue.url.href });
    const { catalogueRoutes } = (await import(
      '../../../../lib/http/catalogue-routes.ts'
    )) as typeof CatalogueRoutesModule;
    handler = catalogueRoutes([lookup, shorten], { jsonBody: jsonBodyStep, queryOf });
    catalogue.received.length = 0;
    captureLogLines();
  });
  afterEach(() => {
    vi.restoreAllMocks();
    vi.unstubAllEnvs();
  });

  const event = (changes: Parameters<typeof httpEvent>[1] & { token?: string }) =>
    httpEvent('jobs-search.json', {
      ...changes,
      headers: { authorization: `Bearer ${changes.token ?? DEMO_TOKENS.all}`, ...changes.headers },
    });

  it("sends the validated query upstream with the application's credentials, and passes the answer back byte for byte", async () => {
    catalogue.script = (_req, res) =>
      res.writeHead(200, { 'content-type': 'text/xml; charset=utf-8' }).end('<r><n>한</n></r>');
    const result = await handler(
      event({
        routeKey: 'GET /test/lookup',
        method: 'GET',
        query: 'q=a%20b',
        body: undefined,
        headers: { accept: 'text/xml' },
      }),
      lambdaContext(),
    );
    expect(result.statusCode).toBe(200);
    expect(result.headers?.['content-type']).toBe('text/xml; charset=utf-8');
    expect(result.body).toBe('<r><n>한</n></r>');
    const sent = catalogue.received[0]!;
    expect(sent.method).toBe('GET');
    expect(sent.url).toBe('/test-lookup/v1/find?q=a+b');
    expect(sent.headers['x-platform-apigw-api-key-id']).toBe('democlient');
    expect(sent.headers.accept).toBe('text/xml');
  });

  it('serves each entry of the group as its own route, with its own input', async () => {
    catalogue.script = (_req, res) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"short":"s"}');
    const result = await handler(
      event({ routeKey: 'POST /test/shorten', body: '{"url":"https://example.com/a"}' }),
      lambdaContext(),
    );
    expect(jsonBody(result)).toEqual({ short: 's' });
    const sent = catalogue.received[0]!;
    expect(sent.url).toBe('/test-shorten/v1/make');
    expect(JSON.parse(sent.body.toString())).toEqual({ target: 'https://example.com/a' });
  });

  it("holds every route to its API's scope and its schema, sending nothing when refused", async () => {
    const narrow = await handler(
      event({ routeKey: 'GET /test/lookup', query: 'q=x', token: DEMO_TOKENS.reporting }),
      lambdaContext(),
    );
    expect(narrow.statusCode).toBe(403);
    expect(jsonBody(narrow)).toMatchObject({
      error: { details: 'This caller lacks the scope "catalogue:shorturl".' },
    });
    const unknown = await handler(
      event({ routeKey: 'GET /test/lookup', query: 'q=x&pages=2' }),
      lambdaContext(),
    );
    expect(unknown.statusCode).toBe(400);
    expect(catalogue.received).toHaveLength(0);
  });

  it("answers the upstream's error in the uniform envelope", async () => {
    catalogue.script = (_req, res) =>
      res
        .writeHead(429, { 'content-type': 'application/json' })
        .end('{"error":{"errorCode":"400","message":"Quota Exceeded"}}');
    const result = await handler(
      event({ routeKey: 'GET /test/lookup', method: 'GET', query: 'q=x', body: undefined }),
      lambdaContext(),
    );
    expect(result.statusCode).toBe(429);
    expect(jsonBody(result)).toMatchObject({ error: { errorCode: '400' } });
  });

  it('answers a route key outside the group with 404/300', async () => {
    const result = await handler(event({ routeKey: 'GET /maps/static' }), lambdaContext());
    expect(result.statusCode).toBe(404);
  });

  it('fails when it is built, at cold start, without the catalogue base URL when deployed', async () => {
    coldStartWith({ AWS_LAMBDA_FUNCTION_NAME: 'platform-gateway-dev-catalogueUtility' });
    const { catalogueRoutes } = (await import(
      '../../../../lib/http/catalogue-routes.ts'
    )) as typeof CatalogueRoutesModule;
    expect(() => catalogueRoutes([lookup], { queryOf })).toThrow(/OPENAPI_BASE_URL/);
  });
});
