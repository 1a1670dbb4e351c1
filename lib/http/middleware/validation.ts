/**
 * Validates path, query and body with the route's zod schemas, reporting every issue at once
 * (400/`100` with `details`), and hands the validated input to the handler on the context.
 */
import type { Context } from 'aws-lambda';
import type * as z from 'zod/mini';
import { InputError, type InputIssue } from '../../core/errors.js';
import type { Logger } from '../../core/log.js';
import { bodyBytes, queryOf } from '../request.js';
import { type HttpMiddleware, type RequestState, stateOf } from './request-state.js';

type Schema<T> = z.ZodMiniType<T>;

export interface InputSchemas {
  readonly body?: Schema<unknown>;
  /** A raw body is handed over as its bytes (when there is no JSON body schema). */
  readonly rawBody?: unknown;
  readonly query?: Schema<unknown>;
  readonly path?: Schema<unknown>;
}

export function validation(schemas: InputSchemas, baseLog: Logger): HttpMiddleware {
  return {
    before: (request) => {
      const issues: InputIssue[] = [];
      const check = (
        where: string,
        schema: Schema<unknown> | undefined,
        input: unknown,
        empty: unknown,
      ) => {
        if (!schema) return empty;
        const result = schema.safeParse(input);
        if (result.success) return result.data;
        for (const issue of result.error.issues) {
          issues.push({ path: [where, ...issue.path.map(String)].join('.'), issue: issue.message });
        }
        return undefined;
      };
      const event = request.event;
      const input = {
        path: check('path', schemas.path, event.pathParameters ?? {}, {}),
        query: check('query', schemas.query, queryOf(event), {}),
        body:
          schemas.rawBody && !schemas.body
            ? bodyBytes(event)
            : check('body', schemas.body, event.body, undefined),
      };
      if (issues.length > 0) throw new InputError(issues);
      const state = stateOf(request, baseLog);
      state.input = input;
      handOver(request.context, state);
    },
  };
}

/** The request's state on the context, where the handler reads it (middy's setToContext). */
export function handOver(context: Context, state: RequestState): void {
  Object.assign(context, { http: state });
}
