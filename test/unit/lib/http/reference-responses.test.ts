/**
 * GET /openapi.json's answer (lib/http/reference-responses.ts): the document of every route, as
 * JSON, the same on every call, within what a Lambda function may return.
 */
import { describe, expect, it } from 'vitest';
import { LAMBDA_PAYLOAD_LIMIT_BYTES } from '../../../../lib/core/lambda-limits.js';
import { buildOpenApiDocument } from '../../../../lib/http/openapi.js';
import { openApiDocument } from '../../../../lib/http/reference-responses.js';
import { routes } from '../../../../lib/http/routes/index.js';

describe('GET /openapi.json', () => {
  it('answers the OpenAPI 3.1 document of every route, as JSON', () => {
    const answer = openApiDocument();
    expect(answer.statusCode).toBe(200);
    expect(answer.headers).toEqual({ 'content-type': 'application/json' });
    expect(answer.isBase64Encoded).toBeFalsy();
    const document = JSON.parse(answer.body ?? '');
    expect(document).toEqual(JSON.parse(JSON.stringify(buildOpenApiDocument())));
    expect(document.openapi).toMatch(/^3\.1\./);
    // Every route, under its path and method (an ANY route under each of its methods).
    const paths = document.paths as Record<string, Record<string, { operationId: string }>>;
    for (const route of routes) {
      const operations = Object.entries(paths[route.path] ?? {});
      const own = operations.filter(([method, operation]) =>
        route.method === 'ANY'
          ? operation.operationId.startsWith(route.id)
          : method === route.method.toLowerCase() && operation.operationId === route.id,
      );
      expect(own.length, route.id).toBeGreaterThan(0);
    }
  });

  it('answers the same text every time: built once per container', () => {
    expect(openApiDocument().body).toBe(openApiDocument().body);
    // A fresh answer each time: a caller's middleware may add headers to it.
    expect(openApiDocument()).not.toBe(openApiDocument());
    expect(openApiDocument().headers).not.toBe(openApiDocument().headers);
  });

  it('fits what a Lambda function may return', () => {
    expect(Buffer.byteLength(JSON.stringify(openApiDocument()))).toBeLessThan(
      LAMBDA_PAYLOAD_LIMIT_BYTES,
    );
  });
});
