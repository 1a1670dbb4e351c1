/**
 * The path parameters, validated with the route's schema before the caller's scope is checked,
 * since a route's scope may name one (`actions:{name}`): a scope is only ever built from a
 * parameter that passed its pattern. A bad one is a 400/`100` naming it.
 */
import type { Schema } from '../../core/schemas.ts';
import type { HttpMiddleware } from './middleware.ts';
import { validInput } from './validation.ts';

export function pathParams(schema: Schema<unknown>): HttpMiddleware {
  return {
    before: ({ event: state }) => {
      state.path = validInput('path', schema, state.apiGatewayEvent.pathParameters ?? {});
    },
  };
}
