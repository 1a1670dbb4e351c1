/** The service's own routes: liveness and its OpenAPI document. */
import { defineRoute } from './route.js';

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
