/**
 * Whether the caller holds the route's scope (403/`210` when not), before the body is read: a
 * scope built from the path (`actions:{name}`) takes the validated parameter.
 */
import { CallerScopeError } from '../../core/errors.ts';
import { grants, type ScopeTemplate, scopeOfRequest } from '../../core/scopes.ts';
import type { HttpMiddleware } from './middleware.ts';

export function authorize(template: ScopeTemplate): HttpMiddleware {
  return {
    before: ({ event: state }) => {
      const scope = scopeOfRequest(template, state.path as { name?: unknown });
      if (!grants(state.caller?.scopes ?? [], scope)) throw new CallerScopeError(scope);
    },
  };
}
