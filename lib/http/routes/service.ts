/**
 * The service's own routes: liveness, its OpenAPI document, and the reference that renders the
 * document in a browser.
 */
import * as z from 'zod/mini';
import { DOCS_ASSET_NAMES } from '../docs-page.js';
import { defineRoute } from './route.js';

/** The reference's own static files (its page, the renderer's script and style). */
export const docsAssetPathSchema = z.object({
  asset: z.enum(DOCS_ASSET_NAMES, `expected one of ${DOCS_ASSET_NAMES.join(', ')}`),
});
export type DocsAssetPath = z.infer<typeof docsAssetPathSchema>;

/** Said of the routes that answer without a token unless the stage turns that off. */
const REFERENCE_ACCESS =
  'Needs no token, unless the stage turns its public reference off (the stage parameter ' +
  'publicReference: false); then any known caller may call it.';

export const serviceRoutes = {
  health: defineRoute({
    function: 'health',
    id: 'health',
    method: 'GET',
    path: '/health',
    access: 'public',
    summary: 'Liveness; needs no token and calls nothing',
    description:
      'Answers 200 {"status":"ok"} while the function runs; it reads no secret and calls ' +
      'nothing upstream, so it says nothing of the platform. Needs no token.',
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
    // The document describes every route and grants nothing; it holds no secret and no name of
    // the configuration (no action, trigger, webhook or caller).
    access: 'public',
    reference: true,
    summary: 'This document',
    description: `The OpenAPI 3.1 document of every route, as GET /docs renders it. ${REFERENCE_ACCESS}`,
    tag: 'service',
    answers: [
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
  }),
  docs: defineRoute({
    function: 'docs',
    id: 'docs',
    method: 'GET',
    path: '/docs',
    access: 'public',
    reference: true,
    summary: 'The reference in a browser: every route, with a place to paste a token and try it',
    description:
      'An HTML page that renders GET /openapi.json (Swagger UI, served by this function: no ' +
      `other site is needed). Authorize takes a caller's bearer token; "Try it out" calls this deployment. ${REFERENCE_ACCESS}`,
    tag: 'service',
    answers: [{ status: 200, description: 'The page', contentTypes: ['text/html'] }],
  }),
  docsAsset: defineRoute<undefined, Record<string, never>, DocsAssetPath>({
    function: 'docs',
    id: 'docsAsset',
    method: 'GET',
    path: '/docs/{asset}',
    access: 'public',
    reference: true,
    summary: "The reference page's script, style and icon",
    description: `Static files of GET /docs, cached by the browser. ${REFERENCE_ACCESS}`,
    tag: 'service',
    input: { path: docsAssetPathSchema },
    answers: [
      {
        status: 200,
        description: 'The file',
        contentTypes: ['application/javascript', 'text/css', 'image/png'],
      },
    ],
  }),
};
