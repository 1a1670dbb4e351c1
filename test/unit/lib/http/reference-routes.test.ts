/**
 * The reference's routes as a stage serves them (lib/http/reference-routes.ts): public by
 * default, refused at init where the stage turned its public reference off (serverless.yml
 * deploys the handler of the stage's choice, and each checks the stage says the same), or for
 * known callers, over the same route otherwise; and GET /openapi.json's answer, the document of
 * every route, as JSON, the same on every call, within what a Lambda function may return.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConfigError } from '../../../../lib/core/errors.ts';
import { LAMBDA_PAYLOAD_LIMIT_BYTES } from '../../../../lib/core/lambda-limits.ts';
import { buildOpenApiDocument } from '../../../../lib/http/openapi.ts';
import {
  callerReferenceRoute,
  openApiDocument,
  publicReferenceRoute,
} from '../../../../lib/http/reference-routes.ts';
import { routes } from '../../../../lib/http/routes/index.ts';
import { needsCaller, type Route } from '../../../../lib/http/routes/route.ts';
import { serviceRoutes } from '../../../../lib/http/routes/service.ts';

const REFERENCE = [serviceRoutes.openapi, serviceRoutes.docs, serviceRoutes.docsAsset] as Route[];

describe('publicReferenceRoute', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it.each([undefined, '', 'true'])(
    'serves the reference to anyone when PUBLIC_REFERENCE is %j',
    (value) => {
      vi.stubEnv('PUBLIC_REFERENCE', value);
      for (const route of REFERENCE) {
        const served = publicReferenceRoute(route);
        expect(served.access).toBe('public');
        expect(needsCaller(served)).toBe(false);
      }
    },
  );

  it("refuses to start public where the stage turned it off, naming the route and the stage's setting", () => {
    vi.stubEnv('PUBLIC_REFERENCE', 'false');
    for (const route of REFERENCE) {
      expect(() => publicReferenceRoute(route)).toThrow(ConfigError);
      expect(() => publicReferenceRoute(route)).toThrow(
        `PUBLIC_REFERENCE is false, but ${route.id} was deployed public`,
      );
    }
  });

  it('fails closed on a value it cannot read: no public reference by mistake', () => {
    vi.stubEnv('PUBLIC_REFERENCE', 'off');
    expect(() => publicReferenceRoute(serviceRoutes.docs)).toThrow(ConfigError);
  });
});

describe('callerReferenceRoute', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('serves the reference to any known caller, whatever the stage says', () => {
    for (const value of ['false', 'true', undefined]) {
      vi.stubEnv('PUBLIC_REFERENCE', value);
      for (const route of REFERENCE) {
        const served = callerReferenceRoute(route);
        expect(served.access).toBe('caller');
        expect(needsCaller(served)).toBe(true);
      }
    }
  });
});

describe('either way', () => {
  it('is the same route otherwise, and leaves the registry entry as it was', () => {
    const route = serviceRoutes.docsAsset;
    const before = structuredClone({ ...route, input: undefined });
    for (const served of [publicReferenceRoute(route), callerReferenceRoute(route)]) {
      expect(served).not.toBe(route);
      const { access: _access, ...rest } = served;
      const { access: _own, ...own } = route;
      expect(rest).toEqual(own);
      expect(served.input).toBe(route.input);
    }
    expect(route.access).toBe('public');
    expect({ ...route, input: undefined }).toEqual(before);
  });
});

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
