/**
 * Several routes served by one Lambda function (a catalogue group): API Gateway names the route
 * in `event.routeKey`, and each route keeps its own stack, bound the one way every route is.
 */
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { NotFoundError } from '../core/errors.ts';
import { bind } from './bind.ts';
import type { HttpResponse } from './responses.ts';
import type { BoundRoute } from './route-stack.ts';
import { notServedRoute } from './routes/fallback.ts';
import { routeKeyOf } from './routes/route.ts';

export function routeGroup(
  bound: readonly BoundRoute[],
): (event: APIGatewayProxyEventV2, context: Context) => Promise<HttpResponse> {
  const byKey = new Map(bound.map((route) => [routeKeyOf(route.route), route] as const));
  // Only reachable when serverless.yml sends a route this group does not serve.
  const notServed = bind(notServedRoute(bound[0]?.route.function ?? 'routeGroup'), async () => {
    throw new NotFoundError('URL not found.');
  });
  return (event, context) => (byKey.get(event.routeKey) ?? notServed)(event, context);
}
