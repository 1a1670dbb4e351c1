/**
 * Every route's docs, by route id: read by the OpenAPI document (lib/http/openapi.ts) and the
 * docs generator (scripts/docs.ts), never by a function while it serves (the lint holds it).
 */
import { catalogue } from '../../../catalogue/table.ts';
import type { Route } from '../route.ts';
import { catalogueDocsOf } from './catalogue.ts';
import { functionDocs } from './functions.ts';
import { jobDocs } from './jobs.ts';
import type { RouteDocs } from './route-docs.ts';
import { serviceDocs } from './service.ts';

const DOCS: Readonly<Record<string, RouteDocs>> = {
  ...serviceDocs,
  ...jobDocs,
  ...functionDocs,
  ...Object.fromEntries(catalogue.map((entry) => [entry.id, catalogueDocsOf(entry)])),
};

/** A route's docs; throws for a route that has none. */
export function docsOf(route: Pick<Route, 'id'>): RouteDocs {
  const found = Object.hasOwn(DOCS, route.id) ? DOCS[route.id] : undefined;
  if (!found) throw new Error(`Route ${route.id} has no docs (lib/http/routes/docs/)`);
  return found;
}
