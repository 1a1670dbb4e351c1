/**
 * The OpenAPI 3.1 document of the whole HTTP API, built from the route registry (lib/http/routes/)
 * and the same zod schemas that validate each route's input, so that the document cannot drift
 * from what the functions accept (each route's operation: openapi-operation.ts). Served at GET
 * /openapi.json and written to openapi.json by `npm run openapi`.
 */
import { ALL_SCOPES, FIXED_SCOPES } from '../core/scopes.ts';
import { WEB_ACTION_METHODS } from '../execution/targets.ts';
import { operationOf } from './openapi-operation.ts';
import { docsOf as registryDocsOf } from './routes/docs/index.ts';
import type { RouteDocs } from './routes/docs/route-docs.ts';
import { routes as allRoutes } from './routes/index.ts';
import type { JsonSchema, Route } from './routes/route.ts';

/** The methods an `ANY` route accepts: a web action's methods, each an operation. */
export const ANY_METHODS = WEB_ACTION_METHODS;

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

/** The body of a 303 to an answer handed off (lib/http/hand-off.ts). */
const HAND_OFF: JsonSchema = {
  type: 'object',
  required: ['handOff'],
  additionalProperties: false,
  properties: {
    handOff: {
      type: 'object',
      required: ['location', 'expiresAt', 'contentLength', 'contentType', 'sha256', 'status'],
      additionalProperties: false,
      properties: {
        location: { type: 'string', format: 'uri', description: 'As the Location header' },
        expiresAt: {
          type: 'string',
          format: 'date-time',
          description: 'When the URL stops working (15 minutes after the answer was stored)',
        },
        contentLength: { type: 'integer', minimum: 0, description: 'Bytes of the answer' },
        contentType: { type: 'string', description: "The platform's Content-Type, kept" },
        sha256: { type: 'string', description: 'The SHA-256 of the bytes, in base64' },
        status: {
          type: 'integer',
          minimum: 200,
          maximum: 299,
          description: "The platform's own status",
        },
      },
    },
  },
};

/**
 * The bearer scheme's text (the Authorize box of GET /docs). A description is CommonMark: every
 * scope is a code span, so that `<name>` is not read as an HTML tag nor `*` as emphasis.
 */
const CALLER_TOKEN_DESCRIPTION =
  "A caller's token from the secret's `callers` (or, deployed with a JWT issuer, a JWT " +
  'whose `scope` claim holds the scopes). Each operation lists the scopes that grant it, any ' +
  `one of them: ${[
    ...FIXED_SCOPES,
    'actions:<name>',
    'actions:*',
    'triggers:<name>',
    'triggers:*',
    'catalogue:<api>',
    'catalogue:*',
  ]
    .map((scope) => `\`${scope}\``)
    .join(', ')}, or \`${ALL_SCOPES}\` (everything). Unknown, expired or malformed: 401/\`200\`; ` +
  'known without the scope: 403/`210`.';

export interface OpenApiDocument {
  readonly openapi: '3.1.0';
  readonly info: {
    title: string;
    version: string;
    description: string;
    license: { name: string; identifier: string };
    contact: { name: string; url?: string };
  };
  readonly servers: {
    url: string;
    description: string;
    variables?: Record<string, { default: string }>;
  }[];
  readonly tags: { name: string; description: string }[];
  readonly paths: Record<string, Record<string, unknown>>;
  readonly components: Record<string, unknown>;
}

const TAGS = [
  { name: 'service', description: 'The service itself' },
  { name: 'jobs', description: 'Web security scan jobs (signed calls)' },
  { name: 'functions', description: 'Actions and triggers, through their gateway URLs' },
  { name: 'webhooks', description: 'Standard Webhooks deliveries, run once each' },
  { name: 'catalogue', description: 'The open API catalogue (client id and secret)' },
];

/**
 * The document of the given routes, each with its docs (default: every route of the service,
 * with the docs of lib/http/routes/docs/).
 */
export function buildOpenApiDocument(
  routeTable: readonly Route[] = allRoutes,
  docsOf: (route: Route) => RouteDocs = registryDocsOf,
): OpenApiDocument {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routeTable) {
    const docs = docsOf(route);
    const methods = route.method === 'ANY' ? ANY_METHODS : [route.method];
    for (const method of methods) {
      paths[route.path] ??= {};
      paths[route.path]![method.toLowerCase()] = operationOf(route, method, docs);
    }
  }
  const tagNames = new Set(routeTable.map((route) => route.tag));
  return {
    openapi: '3.1.0',
    info: {
      title: 'Platform gateway',
      version: '0.1.0',
      description:
        "Lambda functions in front of the platform's API gateway: scan jobs, function " +
        'execution and the open API catalogue. Every error has the uniform envelope, JSON by ' +
        'default, XML with Accept: text/xml or Content-Type: application/xml.',
      // As package.json: a private package, no licence granted. OpenAPI 3.1 wants an SPDX
      // identifier or a URL; SPDX names a licence of one's own LicenseRef-<name>.
      license: { name: 'UNLICENSED', identifier: 'LicenseRef-UNLICENSED' },
      // Whoever deploys the package answers for it; docs/deploy.md says how to reach a stage.
      contact: { name: 'The operators of this deployment (docs/deploy.md)' },
    },
    // (A server variable's `description` would be valid OpenAPI 3.1, but swagger-parser's
    // schema refuses it: each server's own description says what its variables are.)
    servers: [
      {
        url: 'http://127.0.0.1:{port}',
        description:
          'npm start (serverless offline); {port} is its PORT. GET /docs calls the deployment it is served from',
        variables: { port: { default: '3000' } },
      },
      {
        url: 'https://{apiId}.execute-api.{region}.amazonaws.com',
        description:
          'A deployed stage: {apiId} is its HTTP API id, {region} its AWS region; `npx serverless info --stage <stage>` prints the whole URL',
        variables: { apiId: { default: 'abc123defg' }, region: { default: 'us-east-1' } },
      },
    ],
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
          description: CALLER_TOKEN_DESCRIPTION,
        },
      },
      schemas: { ErrorEnvelope: ERROR_ENVELOPE, HandOff: HAND_OFF },
      responses: {
        HandedOff: {
          description:
            "The platform's answer was too large to return directly (a Lambda function returns at " +
            'most 6 MB): it is stored, byte for byte with its Content-Type, and `Location` is a ' +
            'presigned URL that fetches it for 15 minutes. Clients that follow redirects (curl -L, ' +
            'fetch) get the answer itself; the body says the same for those that do not. ' +
            '`Answer-Digest` is the SHA-256 of the bytes, to check them against.',
          headers: {
            Location: {
              description: 'A presigned GET URL of the stored answer, valid for 15 minutes',
              required: true,
              schema: { type: 'string', format: 'uri' },
            },
            'Answer-Length': {
              description: "The stored answer's length in bytes",
              required: true,
              schema: { type: 'integer', minimum: 0 },
            },
            'Answer-Digest': {
              description:
                "The stored answer's SHA-256, in base64, in RFC 9530's syntax: `sha-256=:<base64>:`",
              required: true,
              schema: { type: 'string', pattern: '^sha-256=:[A-Za-z0-9+/]{43}=:$' },
            },
          },
          content: { 'application/json': { schema: { $ref: '#/components/schemas/HandOff' } } },
        },
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
