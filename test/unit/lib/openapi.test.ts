import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import * as z from 'zod/mini';
import { routeKeyOf } from '../../../lib/catalogue/api.js';
import { catalogue } from '../../../lib/catalogue/table.js';
import {
  buildOpenApiDocument,
  jsonSchemaOf,
  type OpenApiDocument,
  operationDocs,
} from '../../../lib/openapi.js';
import { routes } from '../../../lib/routes.js';
import { httpEvent, jsonBody, lambdaContext } from '../../helpers/lambda.js';
import { DEMO_SECRET_FILE, loadHandlers } from '../../helpers/platform.js';

const ROOT = path.resolve(import.meta.dirname, '../../..');

/** `METHOD /path` of every httpApi event in serverless.yml and the files it includes from sls/. */
function serverlessRoutes(): string[] {
  const slsDir = path.join(ROOT, 'sls/functions');
  const files = [
    path.join(ROOT, 'serverless.yml'),
    ...readdirSync(slsDir)
      .filter((file) => file.endsWith('.yml'))
      .map((file) => path.join(slsDir, file)),
  ];
  const found: string[] = [];
  for (const file of files) {
    const lines = readFileSync(file, 'utf8').split('\n');
    lines.forEach((line, i) => {
      const flow = /httpApi:\s*\{\s*method:\s*(\w+),\s*path:\s*(?:'([^']+)'|([^\s}]+))\s*\}/.exec(
        line,
      );
      if (flow) {
        found.push(`${flow[1]?.toUpperCase()} ${flow[2] ?? flow[3]}`);
        return;
      }
      if (!/httpApi:\s*$/.test(line)) return;
      // Block form: method and path on the following lines.
      const block = lines.slice(i + 1, i + 4).join('\n');
      const method = /method:\s*'?(\w+)'?/.exec(block)?.[1];
      const routePath = /path:\s*'?([^'\s]+)'?/.exec(block)?.[1];
      if (method && routePath) found.push(`${method.toUpperCase()} ${routePath}`);
    });
  }
  return found;
}

function operation(document: OpenApiDocument, routeKey: string) {
  const [method = '', routePath = ''] = routeKey.split(' ');
  return document.paths[routePath]?.[method.toLowerCase()] as
    | {
        operationId: string;
        security: unknown[];
        parameters: { name: string; in: string; required: boolean; schema: unknown }[];
        requestBody?: { content: Record<string, { schema: Record<string, unknown> }> };
        responses: Record<string, { content?: Record<string, unknown> }>;
      }
    | undefined;
}

const ANY_METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH', 'HEAD'];

describe('the OpenAPI document', () => {
  const document = buildOpenApiDocument();

  it('is OpenAPI 3.1 with the caller token scheme and the error envelope', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(document.components).toMatchObject({
      securitySchemes: { callerToken: { type: 'http', scheme: 'bearer' } },
      responses: { Error: { content: { 'application/json': {}, 'text/xml': {} } } },
    });
  });

  it('has every route that serverless.yml declares', () => {
    const declared = serverlessRoutes();
    expect(declared.length).toBeGreaterThan(catalogue.length);
    for (const routeKey of declared) {
      const methods = routeKey.startsWith('ANY ') ? ANY_METHODS : [routeKey.split(' ')[0]];
      for (const method of methods) {
        expect(
          operation(document, `${method} ${routeKey.split(' ')[1]}`),
          `${method} ${routeKey}`,
        ).toBeDefined();
      }
    }
  });

  it('has every route of lib/routes.ts, and documents no route that does not exist', () => {
    for (const route of routes) {
      const method = route.method === 'ANY' ? 'GET' : route.method;
      expect(operation(document, `${method} ${route.path}`), route.path).toBeDefined();
    }
    const routeKeys = new Set(routes.map((route) => `${route.method} ${route.path}`));
    for (const key of Object.keys(operationDocs)) expect(routeKeys, key).toContain(key);
  });

  it('gives every operation a unique id and asks for the token everywhere but /health', () => {
    const operations = Object.values(document.paths).flatMap((ops) => Object.values(ops)) as {
      operationId: string;
      security: unknown[];
    }[];
    const ids = operations.map((op) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(operation(document, 'GET /health')?.security).toEqual([]);
    expect(operation(document, 'GET /openapi.json')?.security).toEqual([{ callerToken: [] }]);
  });

  it.each(catalogue.map((api) => [routeKeyOf(api), api] as const))(
    'documents %s from its own schemas',
    (routeKey, api) => {
      const op = operation(document, routeKey)!;
      expect(op.operationId).toBe(api.id);
      const queryParams = op.parameters.filter((p) => p.in === 'query');
      const querySchema = api.query ? jsonSchemaOf(api.query) : { properties: {}, required: [] };
      expect(queryParams.map((p) => p.name)).toEqual(
        Object.keys((querySchema.properties ?? {}) as object),
      );
      for (const p of queryParams) {
        expect(p.required, p.name).toBe(
          ((querySchema.required ?? []) as string[]).includes(p.name),
        );
      }
      if (api.body) {
        expect(op.requestBody?.content['application/json']?.schema).toEqual(jsonSchemaOf(api.body));
      } else if (api.rawBody) {
        expect(Object.keys(op.requestBody?.content ?? {})).toEqual([...api.rawBody]);
      } else {
        expect(op.requestBody).toBeUndefined();
      }
      expect(Object.keys(op.responses['200']?.content ?? {})).toEqual([
        ...api.answers.contentTypes,
      ]);
    },
  );

  it('carries the facts of the schemas: ranges, enumerations, lengths', () => {
    const translate = operation(document, 'POST /translate')!.requestBody!.content[
      'application/json'
    ]!.schema as { properties: Record<string, Record<string, unknown>>; required: string[] };
    expect(translate.properties.text).toMatchObject({ minLength: 1, maxLength: 5000 });
    expect(translate.properties.engine).toMatchObject({ default: 'nmt', enum: ['nmt', 'smt'] });
    expect(translate.required.sort()).toEqual(['source', 'target', 'text']);
    const markers = operation(document, 'GET /maps/static')!.parameters.find(
      (p) => p.name === 'markers',
    );
    expect(markers).toMatchObject({ schema: { type: 'array' }, style: 'form', explode: true });
    const tile = operation(document, 'GET /maps/tiles/{mapType}/{z}/{x}/{tile}')!.parameters.find(
      (p) => p.name === 'tile',
    );
    expect(tile).toMatchObject({ in: 'path', required: true, schema: { type: 'string' } });
  });

  it('resolves every $ref', () => {
    const refs = [...JSON.stringify(document).matchAll(/"\$ref":"#\/([^"]+)"/g)].map((m) => m[1]);
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of refs) {
      let node: unknown = document;
      for (const key of (ref ?? '').split('/')) node = (node as Record<string, unknown>)[key];
      expect(node, ref).toBeDefined();
    }
  });
});

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
      error: { errorCode: '200', message: 'Authentication Failed' },
    });
  });
});

describe('buildOpenApiDocument with a given table', () => {
  it('documents header parameters, other success statuses and routes without an entry', () => {
    const document = buildOpenApiDocument(
      [
        { function: 'receive', method: 'POST', path: '/hooks/{name}', auth: false },
        { function: 'bare', method: 'GET', path: '/bare/{id}', auth: true },
      ],
      {
        'POST /hooks/{name}': {
          summary: 'hook',
          headers: z.object({
            'webhook-id': z.string(),
            'webhook-signature': z.optional(z.string()),
          }),
          success: { status: 202, description: 'accepted' },
        },
      },
    );
    const hook = document.paths['/hooks/{name}']?.post as {
      parameters: { name: string; in: string; required: boolean }[];
      responses: Record<string, unknown>;
      security: unknown[];
    };
    expect(hook.parameters.map((p) => [p.name, p.in, p.required])).toEqual([
      ['name', 'path', true],
      ['webhook-id', 'header', true],
      ['webhook-signature', 'header', false],
    ]);
    expect(Object.keys(hook.responses)).toEqual(['202', '400', 'default']);
    expect(hook.security).toEqual([]);
    expect(document.paths['/bare/{id}']?.get).toMatchObject({
      operationId: 'bare',
      summary: 'GET /bare/{id}',
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
    });
  });
});
