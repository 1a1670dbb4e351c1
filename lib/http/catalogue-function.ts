/**
 * One Lambda function for a group of catalogue routes. API Gateway names the route in
 * `event.routeKey`; each route has its own instance of the one middy stack (platformFunction),
 * built at cold start with that route's schemas, and its handler is the same three steps for
 * every API: validated input -> CatalogueClient.call -> the upstream answer byte for byte.
 */
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { type CatalogueApi, routeKeyOf } from '../catalogue/api.js';
import { catalogueOf } from '../catalogue/client.js';
import { NotFoundError } from '../core/errors.js';
import { getRuntime, platformFunction } from '../runtime.js';
import { httpFunction } from './http-function.js';
import { type HttpResult, passThrough } from './responses.js';
import { routeOfApi } from './routes/catalogue.js';

type RouteHandler = (event: APIGatewayProxyEventV2, context: Context) => Promise<HttpResult>;

/** The stack of one route: its schemas, caller auth, and the pass-through of the answer. */
function catalogueRoute(api: CatalogueApi): RouteHandler {
  return platformFunction<unknown, unknown, unknown>(routeOfApi(api), async (request, runtime) => {
    const response = await catalogueOf(runtime).call(
      api,
      { body: request.body, query: request.query, path: request.path },
      { accept: request.headers.accept },
      request.budget,
    );
    return passThrough(response, 200);
  });
}

/** The handler of a grouped function: dispatches on the route key to the route's stack. */
export function catalogueFunction(name: string, apis: readonly CatalogueApi[]): RouteHandler {
  // Built now, at cold start: a deployed function without OPENAPI_BASE_URL fails its init.
  catalogueOf(getRuntime());
  const stacks = new Map(apis.map((api) => [routeKeyOf(api), catalogueRoute(api)] as const));
  // Only reachable when serverless.yml sends a route this group does not serve.
  const notServed = httpFunction({ name }, async () => {
    throw new NotFoundError('URL not found.');
  });
  return (event, context) => (stacks.get(event.routeKey) ?? notServed)(event, context);
}
