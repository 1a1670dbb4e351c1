/**
 * GET /openapi.json invoked as Lambda invokes it, with the real middy stack: the document
 * lib/http/openapi.ts builds, served behind the caller check.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { buildOpenApiDocument } from '../../../lib/http/openapi.js';
import { httpEvent, jsonBody, lambdaContext } from '../../helpers/lambda.js';
import { DEMO_SECRET_FILE, loadHandlers } from '../../helpers/platform.js';

describe('GET /openapi.json', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  async function openapiHandler() {
    vi.spyOn(console, 'log').mockImplementation(() => {});
    const { openapi } = await loadHandlers(
      { SECRETS_SOURCE: 'file', SECRETS_FILE: DEMO_SECRET_FILE },
      { openapi: 'functions/openapi.ts' },
    );
    return openapi;
  }

  it('serves the document to a caller with a token', async () => {
    const handler = await openapiHandler();
    const result = await handler(httpEvent('catalogue-openapi.json'), lambdaContext());
    expect(result.statusCode).toBe(200);
    expect(result.headers?.['content-type']).toBe('application/json');
    expect(jsonBody(result)).toEqual(JSON.parse(JSON.stringify(buildOpenApiDocument())));
  });

  it('refuses a caller without a token with the envelope', async () => {
    const handler = await openapiHandler();
    const result = await handler(
      httpEvent('catalogue-openapi.json', { headers: { authorization: undefined } }),
      lambdaContext(),
    );
    expect(result.statusCode).toBe(401);
    expect(jsonBody(result)).toEqual({
      error: {
        errorCode: '200',
        message: 'Authentication Failed',
        details: 'No Authorization header: send "Authorization: Bearer <token>".',
      },
    });
  });
});
