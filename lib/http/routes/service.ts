/**
 * The service's own routes: liveness, its OpenAPI document, the reference that renders the
 * document in a browser, and a caller's usage.
 */
import * as z from 'zod/mini';
import { DOCS_ASSET_NAMES } from '../docs-page.ts';
import { defineRoute, document, type JsonSchema, routesOf } from './route.ts';

/** `?caller=<id>` of GET /usage: another caller's id (needs usage:read). */
const usageQuerySchema = z.strictObject({
  caller: z.optional(z.string().check(z.regex(/^[\x21-\x7e]{1,128}$/, 'expected a caller id'))),
});
export type UsageQuery = z.infer<typeof usageQuerySchema>;

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

/** The reference's own static files (its page, the renderer's script and style). */
const docsAssetPathSchema = z.object({
  asset: z.enum(DOCS_ASSET_NAMES, `expected one of ${DOCS_ASSET_NAMES.join(', ')}`),
});
export type DocsAssetPath = z.infer<typeof docsAssetPathSchema>;

/** Said of the routes that answer without a token unless the stage turns that off. */
const REFERENCE_ACCESS =
  'Needs no token, unless the stage turns its public reference off (the stage parameter ' +
  'publicReference: false); then any known caller may call it.';

export const serviceRoutes = routesOf({
  health: defineRoute({
    method: 'GET',
    path: '/health',
    access: 'public',
    summary: 'Liveness; needs no token and calls nothing',
    tag: 'service',
  }),
  openapi: defineRoute({
    method: 'GET',
    path: '/openapi.json',
    // The document describes every route and grants nothing; it holds no secret and no name of
    // the configuration (no action, trigger, webhook or caller).
    access: 'public',
    reference: true,
    summary: 'This document',
    tag: 'service',
  }),
  docs: defineRoute({
    method: 'GET',
    path: '/docs',
    access: 'public',
    reference: true,
    summary: 'The reference in a browser: every route, with a place to paste a token and try it',
    tag: 'service',
  }),
  docsAsset: defineRoute<undefined, Record<string, never>, DocsAssetPath>({
    function: 'docs',
    method: 'GET',
    path: '/docs/{asset}',
    access: 'public',
    reference: true,
    summary: "The reference page's script, style and icon",
    tag: 'service',
    input: { path: docsAssetPathSchema },
  }),
  usage: defineRoute<undefined, UsageQuery>({
    method: 'GET',
    path: '/usage',
    // Any known caller reads its own; `?caller=` another's, with usage:read (the handler checks).
    access: 'caller',
    summary: "The caller's usage plan and usage (day and month), and the account's",
    tag: 'service',
    input: { query: usageQuerySchema },
  }),
});

ROUTE_DOCS: {
  document(serviceRoutes.health, {
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
  });
  document(serviceRoutes.openapi, {
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
  });
  document(serviceRoutes.docs, {
    description:
      'An HTML page that renders GET /openapi.json (Swagger UI, served by this function: no ' +
      `other site is needed). Authorize takes a caller's bearer token; "Try it out" calls this deployment. ${REFERENCE_ACCESS}`,
    responses: [{ status: 200, description: 'The page', contentTypes: ['text/html'] }],
  });
  document(serviceRoutes.docsAsset, {
    description: `Static files of GET /docs, cached by the browser. ${REFERENCE_ACCESS}`,
    responses: [
      {
        status: 200,
        description: 'The file',
        contentTypes: ['application/javascript', 'text/css', 'image/png'],
      },
    ],
  });
  document(serviceRoutes.usage, {
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
  });
}
