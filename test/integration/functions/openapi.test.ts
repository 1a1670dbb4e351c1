/**
 * The reference, invoked as Lambda invokes it, with the real middy stack: GET /openapi.json (the
 * document lib/http/openapi.ts builds) and GET /docs with its files, without a token by default,
 * and behind the caller check where the stage turns its public reference off.
 */
import { gunzipSync } from 'node:zlib';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DOCS_ASSET_NAMES } from '../../../lib/http/docs-page.ts';
import { buildOpenApiDocument } from '../../../lib/http/openapi.ts';
import { httpEvent, jsonBody, lambdaContext } from '../../helpers/lambda.ts';
import { DEMO_SECRET_FILE, loadHandlers } from '../../helpers/platform.ts';

const SECRET = { SECRETS_SOURCE: 'file', SECRETS_FILE: DEMO_SECRET_FILE };
const NO_TOKEN = { headers: { authorization: undefined } };

async function handlers(env: Record<string, string> = {}) {
  vi.spyOn(console, 'log').mockImplementation(() => {});
  return loadHandlers(
    { ...SECRET, ...env },
    {
      openapi: 'functions/openapi.ts',
      docs: 'functions/docs.ts',
      openapiForCallers: 'functions/openapi-for-callers.ts',
      docsForCallers: 'functions/docs-for-callers.ts',
    },
  );
}

const docsEvent = (asset?: string, headers: Record<string, string | undefined> = {}) =>
  httpEvent('docs.json', {
    path: asset ? `/docs/${asset}` : '/docs',
    routeKey: asset ? 'GET /docs/{asset}' : 'GET /docs',
    pathParameters: asset ? { asset } : undefined,
    headers: { authorization: undefined, ...headers },
  });

describe('the reference (GET /openapi.json, GET /docs)', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('serves the document without a token', async () => {
    const { openapi } = await handlers();
    const result = await openapi!(httpEvent('catalogue-openapi.json', NO_TOKEN), lambdaContext());
    expect(result.statusCode).toBe(200);
    expect(result.headers?.['content-type']).toBe('application/json');
    expect(jsonBody(result)).toEqual(JSON.parse(JSON.stringify(buildOpenApiDocument())));
  });

  it('serves the page without a token, allowed to reach its own origin only', async () => {
    const { docs } = await handlers();
    const page = await docs!(docsEvent(), lambdaContext());
    expect(page.statusCode).toBe(200);
    expect(page.headers?.['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers?.['content-security-policy']).toMatch(
      /default-src 'none'.*connect-src 'self'/,
    );
    expect(page.body).toContain('<script src="docs/swagger-ui-bundle.js"></script>');
    expect(page.body).not.toMatch(/https?:\/\//);
  });

  it.each(DOCS_ASSET_NAMES)(
    'serves %s the same to a browser and to a client that says nothing of its codings (the renderer gzipped)',
    async (name) => {
      const { docs } = await handlers();
      const browser = await docs!(
        docsEvent(name, { 'accept-encoding': 'gzip, br' }),
        lambdaContext(),
      );
      const bare = await docs!(docsEvent(name, { 'accept-encoding': undefined }), lambdaContext());
      const bytes = (result: typeof bare) =>
        result.isBase64Encoded
          ? Buffer.from(result.body ?? '', 'base64')
          : Buffer.from(result.body ?? '');
      for (const result of [browser, bare]) {
        expect(result.statusCode).toBe(200);
        const body =
          result.headers?.['content-encoding'] === 'gzip'
            ? gunzipSync(bytes(result))
            : bytes(result);
        expect(body.length).toBeGreaterThan(100);
        expect(body.equals(name === 'init.js' ? bytes(bare) : gunzipSync(bytes(bare)))).toBe(true);
      }
      expect(bare.headers?.['content-encoding']).toBe(name === 'init.js' ? undefined : 'gzip');
    },
  );

  it('refuses a renderer file with 406 to a client that refuses gzip: the 1.5 MB script is never sent as it is', async () => {
    const { docs } = await handlers();
    const refused = await docs!(
      docsEvent('swagger-ui-bundle.js', { 'accept-encoding': 'identity' }),
      lambdaContext(),
    );
    expect(refused.statusCode).toBe(406);
    expect(jsonBody(refused)).toMatchObject({
      error: { errorCode: '100', message: 'Not Acceptable' },
    });
    expect(JSON.stringify(jsonBody(refused))).toContain('Accept-Encoding: gzip');
  });

  it('refuses a file it does not serve, naming the ones it does', async () => {
    const { docs } = await handlers();
    const result = await docs!(docsEvent('secret.json'), lambdaContext());
    expect(result.statusCode).toBe(400);
    expect(jsonBody(result)).toMatchObject({ error: { errorCode: '100' } });
  });

  it('refuses to start public where the stage turned its public reference off', async () => {
    await expect(handlers({ PUBLIC_REFERENCE: 'false' })).rejects.toThrow(
      /PUBLIC_REFERENCE is false/,
    );
  });

  it('where the stage turns it off: a known caller only, for the document and the page', async () => {
    vi.spyOn(console, 'log').mockImplementation(() => {});
    const { openapiForCallers, docsForCallers } = await loadHandlers(
      { ...SECRET, PUBLIC_REFERENCE: 'false' },
      {
        openapiForCallers: 'functions/openapi-for-callers.ts',
        docsForCallers: 'functions/docs-for-callers.ts',
      },
    );
    const refused = await openapiForCallers!(
      httpEvent('catalogue-openapi.json', NO_TOKEN),
      lambdaContext(),
    );
    expect(refused.statusCode).toBe(401);
    expect(jsonBody(refused)).toEqual({
      error: {
        errorCode: '200',
        message: 'Authentication Failed',
        details: 'No Authorization header: send "Authorization: Bearer <token>".',
      },
    });
    const served = await openapiForCallers!(httpEvent('catalogue-openapi.json'), lambdaContext());
    expect(served.statusCode).toBe(200);
    expect((await docsForCallers!(docsEvent(), lambdaContext())).statusCode).toBe(401);
  });
});
