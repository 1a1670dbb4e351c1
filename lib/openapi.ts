/**
 * The OpenAPI 3.1 document of the whole HTTP API, built from the route table (lib/routes.ts)
 * and the same zod schemas that validate each route's input, so that the document cannot
 * drift from what the functions accept. Served at GET /openapi.json and written to
 * openapi.json by `npm run openapi`.
 *
 * Each route is documented by an entry of `operationDocs`, keyed "METHOD /path" as in
 * lib/routes.ts. A route without an entry is still listed, with its path parameters only.
 */
import * as z from 'zod/mini';
import { executionPathSchema, executionQuerySchema } from './actions.js';
import type { CatalogueApi } from './catalogue/api.js';
import { routeKeyOf } from './catalogue/api.js';
import { catalogue } from './catalogue/table.js';
import { type RouteDefinition, routes } from './routes.js';
import {
  cancelReservedBodySchema,
  instancePathSchema,
  listQuerySchema,
  searchBodySchema,
} from './scanJobs.js';
import { webhookPathSchema } from './webhooks.js';

type Schema = z.ZodMiniType;
type JsonSchema = Record<string, unknown>;

export interface SuccessDoc {
  readonly status?: number;
  readonly description: string;
  /** Media types of the success body; binary ones are documented as bytes. */
  readonly contentTypes?: readonly string[];
  readonly binary?: boolean;
}

export interface OperationDoc {
  readonly summary: string;
  readonly description?: string;
  /** Unique operation id; defaults to the route's function name, or one derived from it. */
  readonly operationId?: string;
  readonly tag?: string;
  readonly path?: Schema;
  readonly query?: Schema;
  /** Request headers the route reads (e.g. webhook signatures), lower-case names. */
  readonly headers?: Schema;
  /** A JSON body (application/json). */
  readonly body?: Schema;
  /** A raw body of one of these media types. */
  readonly rawBody?: readonly string[];
  readonly success?: SuccessDoc;
}

const JSON_SUCCESS: SuccessDoc = {
  description: "The platform's answer, unchanged",
  contentTypes: ['application/json'],
};

function catalogueDoc(api: CatalogueApi): OperationDoc {
  const upstream = `${api.upstream.method} ${api.upstream.paths.join(' or ')}`;
  const sent = {
    query: 'query parameters',
    form: 'an application/x-www-form-urlencoded UTF-8 body',
    json: 'a JSON body',
    raw: 'the raw bytes of the request body',
  }[api.sends];
  return {
    summary: api.summary,
    description: [api.description, `Calls \`${upstream}\` with ${sent}.`].filter(Boolean).join(' '),
    operationId: api.id,
    tag: 'catalogue',
    path: api.pathParams,
    query: api.query,
    body: api.body,
    rawBody: api.rawBody,
    success: {
      description:
        api.answers.kind === 'binary'
          ? "The platform's bytes, unchanged, with its Content-Type"
          : "The platform's answer, unchanged",
      contentTypes: api.answers.contentTypes,
      binary: api.answers.kind === 'binary',
    },
  };
}

/**
 * Documentation of every route, keyed "METHOD /path". Owners of new routes append their
 * entries here.
 */
export const operationDocs: Record<string, OperationDoc> = {
  'GET /health': {
    summary: 'Liveness; needs no token and calls nothing',
    tag: 'service',
    success: { description: '{"status":"ok"}', contentTypes: ['application/json'] },
  },
  'GET /openapi.json': {
    summary: 'This document',
    tag: 'service',
    success: { description: 'The OpenAPI 3.1 document', contentTypes: ['application/json'] },
  },
  'GET /jobs': {
    summary: 'List scan jobs, one page',
    tag: 'jobs',
    query: listQuerySchema,
    success: JSON_SUCCESS,
  },
  'POST /jobs/search': {
    summary: 'Search scan jobs by URL or memo',
    tag: 'jobs',
    body: searchBodySchema,
    success: JSON_SUCCESS,
  },
  'POST /jobs/cancel-reserved': {
    summary: 'Cancel every reserved job a search finds, across all pages',
    tag: 'jobs',
    body: cancelReservedBodySchema,
    success: {
      description: '{"cancelled":["<instanceNo>"],"failed":[{"instanceNo","error"}]}',
      contentTypes: ['application/json'],
    },
  },
  'PATCH /jobs/{instanceId}/cancel': {
    summary: 'Cancel a job that has not started',
    tag: 'jobs',
    path: instancePathSchema,
    success: JSON_SUCCESS,
  },
  'PATCH /jobs/{instanceId}/stop': {
    summary: 'Stop a running job',
    tag: 'jobs',
    path: instancePathSchema,
    success: JSON_SUCCESS,
  },
  'GET /jobs/{instanceId}/report': {
    summary: "A finished job's report, byte for byte",
    tag: 'jobs',
    path: instancePathSchema,
    success: JSON_SUCCESS,
  },
  'ANY /actions/{name}': {
    summary: 'Run an action (blocking); a web action keeps the method, others take POST only',
    description:
      "The action's answer comes back unchanged: status, Content-Type, body. A JSON body " +
      '(parameters) is required for an ordinary action, optional for a web action. Only an ' +
      "error of the platform's gateway becomes the uniform envelope.",
    tag: 'functions',
    path: executionPathSchema,
    query: executionQuerySchema,
    success: { description: "The action's answer, unchanged" },
  },
  'POST /triggers/{name}': {
    summary: 'Fire a trigger with a JSON object of parameters',
    tag: 'functions',
    path: executionPathSchema,
    query: executionQuerySchema,
    body: z.record(z.string(), z.unknown()),
    success: { description: "The platform's answer, unchanged (202 or 204)" },
  },
  'POST /webhooks/{name}': {
    summary: 'Receive a Standard Webhooks delivery; its action runs once per webhook-id',
    description:
      'Authenticated by the webhook-id, webhook-timestamp and webhook-signature headers ' +
      '(signed with the webhook secret; 5 minutes tolerance), not by a caller token.',
    tag: 'webhooks',
    path: webhookPathSchema,
    rawBody: ['application/json'],
    success: {
      status: 202,
      description: '{"accepted":true,"id":"<webhook-id>"}',
      contentTypes: ['application/json'],
    },
  },
  ...Object.fromEntries(catalogue.map((api) => [routeKeyOf(api), catalogueDoc(api)])),
};

/** The methods an `ANY` route accepts (a web action's methods). */
const ANY_METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH', 'HEAD'] as const;

const ERROR_ENVELOPE: JsonSchema = {
  type: 'object',
  required: ['error'],
  additionalProperties: false,
  properties: {
    error: {
      type: 'object',
      required: ['errorCode', 'message'],
      additionalProperties: false,
      properties: {
        errorCode: { type: 'string', examples: ['100', '200', '300', '430', 'N2MT05'] },
        message: { type: 'string' },
        details: {
          oneOf: [
            {
              type: 'array',
              items: {
                type: 'object',
                required: ['path', 'issue'],
                properties: { path: { type: 'string' }, issue: { type: 'string' } },
              },
            },
            { type: 'string' },
          ],
        },
      },
    },
  },
};

/** The JSON Schema of what a caller sends (the input side of transforms and defaults). */
export function jsonSchemaOf(schema: Schema): JsonSchema {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, {
    io: 'input',
    target: 'draft-2020-12',
    unrepresentable: 'any',
  }) as JsonSchema;
  return rest;
}

function propertiesOf(schema: Schema | undefined): {
  properties: Record<string, JsonSchema>;
  required: Set<string>;
} {
  if (!schema) return { properties: {}, required: new Set() };
  const json = jsonSchemaOf(schema);
  return {
    properties: (json.properties ?? {}) as Record<string, JsonSchema>,
    required: new Set((json.required ?? []) as string[]),
  };
}

function parametersOf(route: RouteDefinition, doc: OperationDoc | undefined) {
  const pathProps = propertiesOf(doc?.path);
  const pathParams = [...route.path.matchAll(/\{([^}+]+)\+?\}/g)].map(([, name = '']) => ({
    name,
    in: 'path',
    required: true,
    schema: pathProps.properties[name] ?? { type: 'string' },
  }));
  const query = propertiesOf(doc?.query);
  const queryParams = Object.entries(query.properties).map(([name, schema]) => {
    const repeatable = Array.isArray(schema.anyOf) && JSON.stringify(schema).includes('"array"');
    return {
      name,
      in: 'query',
      required: query.required.has(name),
      schema: repeatable ? { type: 'array', items: arrayItems(schema) } : schema,
      ...(repeatable ? { style: 'form', explode: true } : {}),
    };
  });
  const headers = propertiesOf(doc?.headers);
  const headerParams = Object.entries(headers.properties).map(([name, schema]) => ({
    name,
    in: 'header',
    required: headers.required.has(name),
    schema,
  }));
  return [...pathParams, ...queryParams, ...headerParams];
}

/** The item schema of a "one value or an array of them" parameter. */
function arrayItems(schema: JsonSchema): JsonSchema {
  const variants = schema.anyOf as JsonSchema[];
  return variants.find((variant) => variant.type !== 'array') ?? { type: 'string' };
}

function requestBodyOf(doc: OperationDoc | undefined) {
  if (doc?.body) {
    return {
      required: true,
      content: { 'application/json': { schema: jsonSchemaOf(doc.body) } },
    };
  }
  if (doc?.rawBody) {
    return {
      required: true,
      content: Object.fromEntries(
        doc.rawBody.map((type) => [type, { schema: { type: 'string', format: 'binary' } }]),
      ),
    };
  }
  return undefined;
}

function responsesOf(route: RouteDefinition, doc: OperationDoc | undefined) {
  const success = doc?.success ?? { description: 'Success' };
  const content = success.contentTypes
    ? Object.fromEntries(
        success.contentTypes.map((type) => [
          type,
          { schema: success.binary ? { type: 'string', format: 'binary' } : {} },
        ]),
      )
    : undefined;
  const responses: Record<string, unknown> = {
    [String(success.status ?? 200)]: { description: success.description, content },
  };
  responses['400'] = { $ref: '#/components/responses/Error' };
  if (route.auth) responses['401'] = { $ref: '#/components/responses/Error' };
  responses.default = { $ref: '#/components/responses/Error' };
  return responses;
}

function operationIdOf(
  route: RouteDefinition,
  method: string,
  doc: OperationDoc | undefined,
  shared: boolean,
): string {
  if (doc?.operationId) return doc.operationId;
  if (!shared && route.method !== 'ANY') return route.function;
  return `${route.function}${method.charAt(0)}${method.slice(1).toLowerCase()}`;
}

export interface OpenApiDocument {
  readonly openapi: '3.1.0';
  readonly info: { title: string; version: string; description: string };
  readonly tags: { name: string; description: string }[];
  readonly paths: Record<string, Record<string, unknown>>;
  readonly components: Record<string, unknown>;
}

const TAGS = [
  { name: 'service', description: 'The service itself' },
  { name: 'jobs', description: 'Web security scan jobs (signed calls)' },
  { name: 'catalogue', description: 'The open API catalogue (client id and secret)' },
];

/** The document of the given routes (default: every route of the service). */
export function buildOpenApiDocument(
  routeTable: readonly RouteDefinition[] = routes,
  docs: Readonly<Record<string, OperationDoc>> = operationDocs,
): OpenApiDocument {
  const functionUses = new Map<string, number>();
  for (const route of routeTable) {
    functionUses.set(route.function, (functionUses.get(route.function) ?? 0) + 1);
  }
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routeTable) {
    const doc = docs[`${route.method} ${route.path}`];
    const methods = route.method === 'ANY' ? ANY_METHODS : [route.method];
    const shared = (functionUses.get(route.function) ?? 0) > 1;
    for (const method of methods) {
      const operation: Record<string, unknown> = {
        operationId: operationIdOf(route, method, doc, shared),
        summary: doc?.summary ?? `${method} ${route.path}`,
        tags: [doc?.tag ?? route.path.split('/')[1] ?? 'service'],
        security: route.auth ? [{ callerToken: [] }] : [],
        parameters: parametersOf(route, doc),
        responses: responsesOf(route, doc),
      };
      if (doc?.description) operation.description = doc.description;
      const requestBody = requestBodyOf(doc);
      if (requestBody) operation.requestBody = requestBody;
      paths[route.path] ??= {};
      paths[route.path]![method.toLowerCase()] = operation;
    }
  }
  const tagNames = new Set(
    Object.values(paths).flatMap((ops) =>
      Object.values(ops).flatMap((op) => (op as { tags: string[] }).tags),
    ),
  );
  return {
    openapi: '3.1.0',
    info: {
      title: 'Platform gateway',
      version: '0.1.0',
      description:
        "Lambda functions in front of the platform's API gateway: scan jobs, function " +
        'execution and the open API catalogue. Every error has the uniform envelope, JSON by ' +
        'default, XML with Accept: text/xml or Content-Type: application/xml.',
    },
    tags: [
      ...TAGS.filter((tag) => tagNames.has(tag.name)),
      ...[...tagNames]
        .filter((name) => !TAGS.some((tag) => tag.name === name))
        .map((name) => ({ name, description: name })),
    ],
    paths,
    components: {
      securitySchemes: {
        callerToken: {
          type: 'http',
          scheme: 'bearer',
          description: 'A token from the secret\'s "callerTokens"',
        },
      },
      schemas: { ErrorEnvelope: ERROR_ENVELOPE },
      responses: {
        Error: {
          description: 'The uniform error envelope',
          content: {
            'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } },
            'text/xml': { schema: { type: 'string' } },
          },
        },
      },
    },
  };
}
