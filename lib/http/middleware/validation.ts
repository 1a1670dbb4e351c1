/**
 * Validates the query and the JSON body with the route's zod schemas, reporting every issue at
 * once (400/`100` with `details` that teach: lib/core/input-issues.ts), and puts the validated
 * input on the request's state, where the handler's request reads it. (The path was validated
 * before the caller's scope, path-params.ts.)
 */
import { InputError, type InputIssue } from '../../core/errors.ts';
import { type InputPlace, parseInput } from '../../core/input-issues.ts';
import type { Schema } from '../../core/schemas.ts';
import type { queryOf } from '../query.ts';
import type { HttpMiddleware } from './middleware.ts';

/**
 * The body's and the query's schemas. A query comes with its reader (query.ts's `queryOf`,
 * which the route's binding brings), so that a bundle whose route reads none carries none.
 */
type InputSchemas = { readonly body?: Schema } & (
  | { readonly query?: undefined }
  | { readonly query: Schema; readonly queryOf: typeof queryOf }
);

/** A part of the input, validated: its value, or the 400 naming every issue. */
export function validInput(where: InputPlace, schema: Schema, value: unknown): unknown {
  const issues: InputIssue[] = [];
  const valid = checked(where, schema, value, issues);
  if (issues.length > 0) throw new InputError(issues);
  return valid;
}

function checked(where: InputPlace, schema: Schema, value: unknown, issues: InputIssue[]): unknown {
  const parsed = parseInput(where, schema, value);
  if (parsed.success) return parsed.data;
  issues.push(...parsed.issues);
  return undefined;
}

export function validation(schemas: InputSchemas): HttpMiddleware {
  return {
    before: ({ event: state }) => {
      const issues: InputIssue[] = [];
      const query = schemas.query
        ? checked(
            'query',
            schemas.query,
            schemas.queryOf(state.apiGatewayEvent.rawQueryString),
            issues,
          )
        : {};
      const body = schemas.body
        ? checked('body', schemas.body, state.body.json(), issues)
        : undefined;
      if (issues.length > 0) throw new InputError(issues);
      state.input = { path: state.path, query, body };
    },
  };
}
