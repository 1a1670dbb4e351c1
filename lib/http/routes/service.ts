/** The service's own routes: liveness, its OpenAPI document, and a caller's usage. */
import * as z from 'zod/mini';
import { type JsonSchema, defineRoute } from './route.js';

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

export const serviceRoutes = {
  health: defineRoute({
    function: 'health',
    id: 'health',
    method: 'GET',
    path: '/health',
    access: 'public',
    summary: 'Liveness; needs no token and calls nothing',
    tag: 'service',
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
  }),
  openapi: defineRoute({
    function: 'openapi',
    id: 'openapi',
    method: 'GET',
    path: '/openapi.json',
    // Any known caller: the document describes every route, and grants nothing.
    access: 'caller',
    summary: 'This document',
    tag: 'service',
    responses: [
      {
        status: 200,
        description: 'The OpenAPI 3.1 document',
        contentTypes: ['application/json'],
        schema: { type: 'object', required: ['openapi', 'paths'] },
      },
    ],
  }),
  usage: defineRoute<undefined, UsageQuery>({
    function: 'usage',
    id: 'usage',
    method: 'GET',
    path: '/usage',
    // Any known caller reads its own; `?caller=` another's, with usage:read (the handler checks).
    access: 'caller',
    summary: "The caller's usage plan and usage (day and month), and the account's",
    description:
      'Requests and characters counted today (UTC) and this month, what the plan leaves, and ' +
      'when each window resets. `?caller=<id>` reads another caller, with the scope usage:read.',
    tag: 'service',
    input: { query: usageQuerySchema },
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
  }),
};

/**
 * The catch-all: API Gateway's `$default` route, for an unknown path or a known path called
 * with another method. Not a route of the registry (it is in no document): it answers 404/`300`
 * or 405/`100` in the uniform envelope rather than API Gateway's own.
 */
export const fallbackRoute = defineRoute({
  function: 'fallback',
  id: 'fallback',
  method: 'ANY',
  path: '/{proxy+}',
  access: 'public',
  summary: 'Any other path or method: 404 or 405',
  tag: 'service',
  responses: [],
});

/** What a grouped function answers for a route key it does not serve (a misrouted request). */
export function notServedRoute(functionName: string) {
  return defineRoute({ ...fallbackRoute, function: functionName, id: `${functionName}NotServed` });
}
