/** The docs of the service's own routes: liveness, the reference and a caller's usage. */
import type { JsonSchema } from '../route.ts';
import type { serviceRoutes } from '../service.ts';
import type { RouteDocs } from './route-docs.ts';

/** One window of a subject's usage, as GET /usage answers it. */
const windowUsageSchema: JsonSchema = {
  type: 'object',
  required: ['window', 'requests', 'characters', 'remaining', 'resetsAt'],
  properties: {
    window: { type: 'string', description: 'The UTC day (2026-11-25) or month (2026-11)' },
    requests: { type: 'integer' },
    characters: {
      type: 'object',
      properties: { translate: { type: 'integer' }, tts: { type: 'integer' } },
    },
    remaining: {
      type: 'object',
      description: "What the plan's quotas of this window leave; only the quotas it has",
    },
    resetsAt: { type: 'string', format: 'date-time' },
  },
};

/** A caller's or the account's plan and usage. */
const subjectUsageSchema: JsonSchema = {
  type: 'object',
  required: ['plan', 'counted', 'day', 'month'],
  properties: {
    plan: { type: ['object', 'null'], description: 'The plan, as the secret holds it; null: none' },
    counted: {
      type: 'boolean',
      description: 'False for a caller without a plan: its requests are not counted on their own',
    },
    day: windowUsageSchema,
    month: windowUsageSchema,
  },
};

/** Said of the routes that answer without a token unless the stage turns that off. */
const REFERENCE_ACCESS =
  'Needs no token, unless the stage turns its public reference off (the stage parameter ' +
  'publicReference: false); then any known caller may call it.';

/** The README's line of the reference's three routes. */
const REFERENCE_UPSTREAM =
  "the OpenAPI 3.1 document of every route, and the same in a browser (Swagger UI from the function's own bundle)";

export const serviceDocs: { readonly [K in keyof typeof serviceRoutes]: RouteDocs } = {
  health: {
    upstream: 'none',
    description:
      'Answers 200 {"status":"ok"} while the function runs; it reads no secret and calls ' +
      'nothing upstream, so it says nothing of the platform. Needs no token.',
    responses: [
      {
        status: 200,
        description: '{"status":"ok"}',
        contentTypes: ['application/json'],
        schema: {
          type: 'object',
          required: ['status'],
          properties: { status: { const: 'ok' } },
          additionalProperties: false,
        },
      },
    ],
  },
  openapi: {
    upstream: REFERENCE_UPSTREAM,
    description: `The OpenAPI 3.1 document of every route, as GET /docs renders it. ${REFERENCE_ACCESS}`,
    responses: [
      {
        status: 200,
        description: 'The OpenAPI 3.1 document',
        contentTypes: ['application/json'],
        schema: {
          type: 'object',
          required: ['openapi', 'info', 'paths'],
          properties: {
            openapi: { type: 'string', description: 'The OpenAPI version, 3.1.x' },
            info: { type: 'object', description: 'Title, version and description' },
            servers: { type: 'array', items: { type: 'object' } },
            paths: { type: 'object', description: 'Every route, by path and method' },
            components: { type: 'object' },
          },
        },
      },
    ],
  },
  docs: {
    upstream: REFERENCE_UPSTREAM,
    description:
      'An HTML page that renders GET /openapi.json (Swagger UI, served by this function: no ' +
      `other site is needed). Authorize takes a caller's bearer token; "Try it out" calls this deployment. ${REFERENCE_ACCESS}`,
    responses: [{ status: 200, description: 'The page', contentTypes: ['text/html'] }],
  },
  docsAsset: {
    upstream: REFERENCE_UPSTREAM,
    description: `Static files of GET /docs, cached by the browser. ${REFERENCE_ACCESS}`,
    responses: [
      {
        status: 200,
        description: 'The file',
        contentTypes: ['application/javascript', 'text/css', 'image/png'],
      },
    ],
  },
  usage: {
    upstream:
      "the caller's usage plan and what it used today and this month, and the account's; `?caller=` another's, with `usage:read` ([docs/callers.md](docs/callers.md#usage-plans))",
    accessNote: 'its own usage; `?caller=<id>`: `usage:read`, or `*`',
    description:
      'Requests and characters counted today (UTC) and this month, what the plan leaves, and ' +
      'when each window resets. `?caller=<id>` reads another caller, with the scope usage:read.',
    responses: [
      {
        status: 200,
        description: "The caller's plan and usage, and the account's (null without an accountPlan)",
        contentTypes: ['application/json'],
        schema: {
          type: 'object',
          required: ['caller', 'account'],
          properties: {
            caller: {
              allOf: [
                subjectUsageSchema,
                { type: 'object', required: ['id'], properties: { id: { type: 'string' } } },
              ],
            },
            account: { oneOf: [subjectUsageSchema, { type: 'null' }] },
          },
        },
      },
    ],
  },
};
