/**
 * One Lambda function for a group of catalogue routes. API Gateway names the route in
 * `event.routeKey`; each route has its own instance of the one middy stack (platformFunction),
 * built at cold start with that route's schemas, and its handler is the same three steps for
 * every API: validated input -> CatalogueClient.call -> the upstream answer byte for byte.
 */
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { catalogueClientOf } from '../catalogue/client.js';
import { type CatalogueEntry, routeKeyOf } from '../catalogue/entry.js';
import { NotFoundError } from '../core/errors.js';
import { getRuntime } from '../runtime.js';
import { httpFunction } from './http-function.js';
import { platformFunction } from './platform-function.js';
import { type HttpResponse, passThrough } from './responses.js';
import { routeOfEntry } from './routes/catalogue.js';

type RouteHandler = (event: APIGatewayProxyEventV2, context: Context) => Promise<HttpResponse>;

/** The stack of one route: its schemas, caller auth, and the pass-through of the answer. */
function catalogueRoute(entry: CatalogueEntry): RouteHandler {
  return platformFunction<unknown, unknown, unknown>(
    routeOfEntry(entry),
    async (request, runtime) => {
      const response = await catalogueClientOf(runtime).call(
        entry,
        { body: request.body, query: request.query, path: request.path },
        { accept: request.headers.accept },
        request.budget,
      );
      return passThrough(response, 200);
    },
  );
}

/** The handler of a grouped function: dispatches on the route key to the route's stack. */
export function catalogueFunction(name: string, entries: readonly CatalogueEntry[]): RouteHandler {
  // Built now, at cold start: a deployed function without OPENAPI_BASE_URL fails its init.
  catalogueClientOf(getRuntime());
  const stacks = new Map(
    entries.map((entry) => [routeKeyOf(entry), catalogueRoute(entry)] as const),
  );
  // Only reachable when serverless.yml sends a route this group does not serve.
  const notServed = httpFunction({ name }, async () => {
    throw new NotFoundError('URL not found.');
  });
  return (event, context) => (stacks.get(event.routeKey) ?? notServed)(event, context);
}
