/**
 * The OpenAPI document as the text GET /openapi.json serves. Built here from the route registry
 * (every route's schemas); the function's bundle carries it already built, by the same code at
 * package time (sls/plugins/esbuild-plugins.ts), so that the function loads neither the
 * registry nor a schema it would only describe.
 */
import { buildOpenApiDocument } from './openapi.ts';

let text: string | undefined;

export function openApiDocumentText(): string {
  text ??= JSON.stringify(buildOpenApiDocument());
  return text;
}
