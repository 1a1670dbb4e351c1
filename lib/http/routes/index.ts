/**
 * Every HTTP route of the service, from the per-area registries (each function imports only its
 * own area, to keep its bundle small). The fallback function reads this list to tell an unknown
 * path (404) from a known path called with the wrong method (405 with `Allow`); the OpenAPI
 * document and serverless.yml's `httpApi` events are built from it.
 */
import { catalogue } from '../../catalogue/table.ts';
import { ALL_SCOPES, scopesGranting } from '../../core/scopes.ts';
import { routeOfEntry } from './catalogue.ts';
import { functionRoutes } from './functions.ts';
import { jobRoutes } from './jobs.ts';
import { accessOf, type Route } from './route.ts';
import { serviceRoutes } from './service.ts';

export const routes: readonly Route[] = [
  ...Object.values(serviceRoutes),
  ...Object.values(jobRoutes),
  ...Object.values(functionRoutes),
  ...catalogue.map(routeOfEntry),
] as Route[];

/** The methods a path accepts, or undefined when no route has that path. */
export function allowedMethods(path: string): string[] | undefined {
  const methods = routes.filter((route) => templateMatches(route.path, path)).map((r) => r.method);
  return methods.length > 0 ? [...new Set(methods)] : undefined;
}

function templateMatches(template: string, path: string): boolean {
  const want = template.split('/');
  const got = path.split('/');
  if (want.length !== got.length) return false;
  return want.every((segment, i) => (segment.startsWith('{') ? got[i] !== '' : segment === got[i]));
}

/** An `httpApi` event of serverless.yml. */
interface HttpApiEvent {
  httpApi: {
    method: string;
    path: string;
    authorizer?: { name: string; scopes?: string[] };
  };
}

/** The name of the JWT authorizer in serverless.yml (provider.httpApi.authorizers). */
const JWT_AUTHORIZER = 'callerJwt';

/**
 * The JWT authorizer's part of a route: every route with a caller is behind it; a route with a
 * fixed scope asks for that scope or one granting it (API Gateway wants any one of a route's
 * `authorizationScopes` in the token's `scope` claim), `*` only where the stage allows a JWT to
 * carry it (JWT_ALLOW_STAR_SCOPE). A scope built from the path (an action's or a trigger's
 * name) cannot be written in the template: the function checks it.
 */
function authorizerOf(
  route: Route,
  options: { readonly allowStarScope: boolean; readonly publicReference: boolean },
): HttpApiEvent['httpApi']['authorizer'] {
  const access = accessOf(route, options.publicReference);
  if (access === 'public') return undefined;
  if (access === 'caller' || access.scope.endsWith(':{name}')) {
    return { name: JWT_AUTHORIZER };
  }
  const scopes = scopesGranting(access.scope).filter(
    (scope) => options.allowStarScope || scope !== ALL_SCOPES,
  );
  return { name: JWT_AUTHORIZER, scopes };
}

/**
 * serverless.yml's `httpApi` events of every HTTP function, by function name; with `jwt`, each
 * route that needs a caller is behind API Gateway's JWT authorizer with its scopes (`*` among
 * them only with `allowStarScope`; the reference's routes too, when the stage turns its public
 * reference off).
 */
export function httpApiEvents(
  options: { jwt?: boolean; allowStarScope?: boolean; publicReference?: boolean } = {},
): Record<string, HttpApiEvent[]> {
  const events: Record<string, HttpApiEvent[]> = {};
  for (const route of routes) {
    const method = route.method === 'ANY' ? '*' : route.method;
    const authorizer = options.jwt
      ? authorizerOf(route, {
          allowStarScope: options.allowStarScope === true,
          publicReference: options.publicReference ?? true,
        })
      : undefined;
    events[route.function] = [
      ...(events[route.function] ?? []),
      { httpApi: { method, path: route.path, ...(authorizer ? { authorizer } : {}) } },
    ];
  }
  return events;
}
