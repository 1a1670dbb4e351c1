import SwaggerParser from '@apidevtools/swagger-parser';
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { catalogue } from '../../../../lib/catalogue/table.ts';
import {
  ANY_METHODS,
  buildOpenApiDocument,
  type OpenApiDocument,
} from '../../../../lib/http/openapi.ts';
import { jsonSchemaOf } from '../../../../lib/http/openapi-operation.ts';
import type { RouteDocs } from '../../../../lib/http/routes/docs/route-docs.ts';
import { routes } from '../../../../lib/http/routes/index.ts';
import { type Route, routeKeyOf } from '../../../../lib/http/routes/route.ts';

function operation(document: OpenApiDocument, routeKey: string) {
  const [method = '', routePath = ''] = routeKey.split(' ');
  return document.paths[routePath]?.[method.toLowerCase()] as
    | {
        operationId: string;
        description?: string;
        security: unknown[];
        parameters: { name: string; in: string; required: boolean; schema: unknown }[];
        requestBody?: {
          description?: string;
          content: Record<string, { schema: Record<string, unknown> }>;
        };
        responses: Record<string, { content?: Record<string, unknown> }>;
      }
    | undefined;
}

describe('the OpenAPI document', () => {
  const document = buildOpenApiDocument();

  it('passes an independent validator of OpenAPI 3.1 documents', async () => {
    const result = await new Validator().validate(JSON.parse(JSON.stringify(document)));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('passes swagger-parser, the most used validator (it dereferences a copy)', async () => {
    const copy = JSON.parse(JSON.stringify(document)) as Parameters<
      typeof SwaggerParser.validate
    >[0];
    await expect(SwaggerParser.validate(copy)).resolves.toBeTruthy();
  });

  it('states the scopes that grant each operation, any one of them', () => {
    expect(operation(document, 'GET /jobs')?.security).toEqual([
      { callerToken: ['jobs:read'] },
      { callerToken: ['*'] },
    ]);
    expect(operation(document, 'PATCH /jobs/{instanceId}/stop')?.security).toEqual([
      { callerToken: ['jobs:stop'] },
      { callerToken: ['*'] },
    ]);
    expect(operation(document, 'DELETE /actions/{name}')?.security).toEqual([
      { callerToken: ['actions:{name}'] },
      { callerToken: ['actions:*'] },
      { callerToken: ['*'] },
    ]);
    expect(operation(document, 'GET /maps/geocode')?.security).toEqual([
      { callerToken: ['catalogue:maps'] },
      { callerToken: ['catalogue:*'] },
      { callerToken: ['*'] },
    ]);
    expect(operation(document, 'PATCH /jobs/{instanceId}/stop')?.description).toContain(
      'Needs the scope `jobs:stop` (or `*`).',
    );
    expect(Object.keys(operation(document, 'GET /jobs')!.responses)).toContain('403');
    for (const route of routes) {
      const op = operation(
        document,
        `${route.method === 'ANY' ? 'POST' : route.method} ${route.path}`,
      )!;
      const expected = route.reference
        ? 2 // no token, or any known caller's
        : route.access === 'public'
          ? 0
          : route.access === 'caller'
            ? 1
            : route.access.scope.startsWith('jobs:')
              ? 2
              : 3;
      expect(op.security, route.id).toHaveLength(expected);
    }
  });

  it('writes every description so that CommonMark renders it as written: no bare <tag> or *', () => {
    // A description is CommonMark (the /docs page renders it): `<name>` outside a code span is
    // an HTML tag, dropped, and `*...*` emphasis. Code spans keep both as written.
    const descriptions: string[] = [];
    const collect = (node: unknown): void => {
      if (Array.isArray(node)) node.forEach(collect);
      else if (node && typeof node === 'object') {
        for (const [key, value] of Object.entries(node)) {
          if (key === 'description' && typeof value === 'string') descriptions.push(value);
          else collect(value);
        }
      }
    };
    collect(document);
    expect(descriptions.length).toBeGreaterThan(50);
    for (const text of descriptions) {
      const outsideCode = text.replace(/`[^`]*`/g, '');
      expect(outsideCode, text).not.toMatch(/<[A-Za-z/]|\*/);
    }
  });

  it('lists every scope in the token scheme, each as written', () => {
    const scheme = (document.components.securitySchemes as Record<string, { description: string }>)
      .callerToken!.description;
    for (const scope of [
      'jobs:read',
      'jobs:cancel',
      'jobs:cancel-reserved',
      'jobs:stop',
      'usage:read',
      'actions:<name>',
      'actions:*',
      'triggers:<name>',
      'triggers:*',
      'catalogue:<api>',
      'catalogue:*',
      '*',
    ]) {
      expect(scheme).toContain(`\`${scope}\``);
    }
  });

  it('is OpenAPI 3.1 with the caller token scheme and the error envelope', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(document.components).toMatchObject({
      securitySchemes: { callerToken: { type: 'http', scheme: 'bearer' } },
      responses: { Error: { content: { 'application/json': {}, 'text/xml': {} } } },
    });
  });

  it('has every route of the registry, each method of an ANY route, and nothing else', () => {
    const expected = routes.flatMap((route) =>
      (route.method === 'ANY' ? ANY_METHODS : [route.method]).map(
        (method) => `${method} ${route.path}`,
      ),
    );
    const documented = Object.entries(document.paths).flatMap(([routePath, ops]) =>
      Object.keys(ops).map((method) => `${method.toUpperCase()} ${routePath}`),
    );
    expect(documented.sort()).toEqual(expected.sort());
  });

  it('documents integers in the query and the path as integers, for typed clients', () => {
    const list = operation(document, 'GET /jobs')!;
    expect(list.parameters.find((p) => p.name === 'page')?.schema).toMatchObject({
      type: 'integer',
      minimum: 1,
    });
    const tile = operation(document, 'GET /maps/tiles/{mapType}/{z}/{x}/{tile}')!;
    for (const name of ['z', 'x']) {
      expect(tile.parameters.find((p) => p.name === name)?.schema).toMatchObject({
        type: 'integer',
      });
    }
  });

  it('declares the bodies and answers of actions, triggers and webhooks', () => {
    expect(operation(document, 'POST /actions/{name}')?.requestBody).toMatchObject({
      required: false,
      content: { 'application/json': {} },
    });
    expect(Object.keys(operation(document, 'POST /triggers/{name}')!.responses)).toEqual(
      expect.arrayContaining(['202', '204']),
    );
    const webhook = operation(document, 'POST /webhooks/{name}')!;
    // What a sender posts: a JSON object, whose raw bytes the signature covers.
    expect(webhook.requestBody?.content['application/json']?.schema).toEqual({ type: 'object' });
    expect(webhook.requestBody?.description).toContain('raw bytes');
    expect(webhook.parameters.filter((p) => p.in === 'header').map((p) => p.name)).toEqual([
      'webhook-id',
      'webhook-timestamp',
      'webhook-signature',
    ]);
    expect(webhook.security).toEqual([]);
  });

  it('names its servers and its licence', () => {
    expect(document.servers[0]?.url).toBe('http://127.0.0.1:{port}');
    expect(document.servers[0]?.variables?.port?.default).toBe('3000');
    expect(document.info.contact.name).toMatch(/operators/);
    expect(document.info.license).toEqual({
      name: 'UNLICENSED',
      identifier: 'LicenseRef-UNLICENSED',
    });
  });

  it('gives every operation a unique id and asks for the token everywhere but /health and the reference', () => {
    const operations = Object.values(document.paths).flatMap((ops) => Object.values(ops)) as {
      operationId: string;
      security: unknown[];
    }[];
    const ids = operations.map((op) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(operation(document, 'GET /health')?.security).toEqual([]);
    // The reference: no token needed, unless the stage turns its public reference off.
    for (const key of ['GET /openapi.json', 'GET /docs', 'GET /docs/{asset}']) {
      expect(operation(document, key)?.security, key).toEqual([{}, { callerToken: [] }]);
    }
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
      } else if (api.bytes) {
        expect(Object.keys(op.requestBody?.content ?? {})).toEqual([...api.bytes]);
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

  it('documents the 303 of every route that hands off its answers, and of no other', () => {
    const handingOff = new Set<string>();
    for (const route of routes) {
      const methods = route.method === 'ANY' ? ANY_METHODS : [route.method];
      for (const method of methods) {
        const responses = operation(document, `${method} ${route.path}`)?.responses ?? {};
        if (route.handsOff) {
          handingOff.add(route.id);
          expect(responses['303'], route.id).toEqual({ $ref: '#/components/responses/HandedOff' });
        } else expect(responses['303'], route.id).toBeUndefined();
      }
    }
    expect([...handingOff].sort()).toEqual(
      [
        'audioCaptcha',
        'fireTrigger',
        'getJobReport',
        'imageCaptcha',
        'invokeAction',
        'mapTile',
        'staticMap',
        'tts',
      ].sort(),
    );
    const handedOff = (document.components.responses as Record<string, Record<string, unknown>>)
      .HandedOff;
    expect(Object.keys(handedOff?.headers as object)).toEqual([
      'Location',
      'Answer-Length',
      'Answer-Digest',
    ]);
    expect(handedOff?.content).toEqual({
      'application/json': { schema: { $ref: '#/components/schemas/HandOff' } },
    });
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

describe('buildOpenApiDocument with a given table', () => {
  it('documents header parameters, other success statuses and routes without input', () => {
    const given: Route[] = [
      {
        function: 'receive',
        id: 'receive',
        method: 'POST',
        path: '/hooks/{name}',
        access: 'public',
        summary: 'hook',
        tag: 'hooks',
        input: {
          headers: z.object({
            'webhook-id': z.string(),
            'webhook-signature': z.optional(z.string()),
          }),
        },
      },
      {
        function: 'bare',
        id: 'bare',
        method: 'GET',
        path: '/bare/{id}',
        access: 'caller',
        summary: 'bare',
        tag: 'bare',
      },
    ];
    const docs: Record<string, RouteDocs> = {
      receive: { responses: [{ status: 202, description: 'accepted' }] },
      bare: { responses: [{ status: 200, description: 'ok' }] },
    };
    const document = buildOpenApiDocument(given, (route) => docs[route.id]!);
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
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
    });
  });
});
