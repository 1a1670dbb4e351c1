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
    answers: [
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
    answers: [
      {
        status: 200,
        description: 'The OpenAPI 3.1 document',
        contentTypes: ['application/json'],
        schema: { type: 'object', required: ['openapi', 'paths'] },
      },
    ],
  }),
};
