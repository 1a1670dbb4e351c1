/**
 * The service's own routes: liveness, its OpenAPI document, the reference that renders the
 * document in a browser, and a caller's usage.
 */
import * as z from 'zod/mini';
import { DOCS_ASSET_NAMES } from '../docs-page.ts';
import { defineRoute, routesOf } from './route.ts';

/** `?caller=<id>` of GET /usage: another caller's id (needs usage:read). */
const usageQuerySchema = z.strictObject({
  caller: z.optional(z.string().check(z.regex(/^[\x21-\x7e]{1,128}$/, 'expected a caller id'))),
});

/** The reference's own static files (its page, the renderer's script and style). */
const docsAssetPathSchema = z.object({
  asset: z.enum(DOCS_ASSET_NAMES, `expected one of ${DOCS_ASSET_NAMES.join(', ')}`),
});

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
  docsAsset: defineRoute({
    function: 'docs',
    method: 'GET',
    path: '/docs/{asset}',
    access: 'public',
    reference: true,
    summary: "The reference page's script, style and icon",
    tag: 'service',
    input: { path: docsAssetPathSchema },
  }),
  usage: defineRoute({
    method: 'GET',
    path: '/usage',
    // Any known caller reads its own; `?caller=` another's, with usage:read (the handler checks).
    access: 'caller',
    summary: "The caller's usage plan and usage (day and month), and the account's",
    tag: 'service',
    input: { query: usageQuerySchema },
  }),
});
