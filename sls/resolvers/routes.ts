// serverless.yml reads each HTTP function's `httpApi` events from the route registry
// (lib/http/routes/), so that a route is declared once: sls/resolvers/functions.ts gives each
// function the events of its routes.
import { httpApiEvents as registryEvents } from '../../lib/http/routes/index.ts';
import type { ResolverArgs, ResolveVariable } from '../serverless.ts';
import { setting } from './deploy-env.ts';
import { isLocal } from './local.ts';

/** Each function's `httpApi` events, by function name. */
export type RouteEvents = ReturnType<typeof registryEvents>;

/** serverless offline and invoke local (IS_OFFLINE=true forces it, as serverless.yml reads it). */
const local = (): boolean => process.env.IS_OFFLINE === 'true' || isLocal() === 'true';

/**
 * With a JWT issuer (sls/resolvers/jwt.ts), routes with a caller are behind the JWT authorizer
 * when packaged. Not locally: serverless offline cannot check a JWT's signature (and fails to
 * start on such a route unless told to ignore it); sls/plugins/offline-jwt.ts checks them there,
 * from the same events (jwtRouteEvents).
 */
export const httpApiEvents = async ({ resolveVariable }: ResolverArgs): Promise<RouteEvents> =>
  registryEvents({
    jwt: Boolean(setting('JWT_ISSUER_URL')) && !local(),
    allowStarScope: allowStarScope(),
    publicReference: await publicReferenceOf(resolveVariable),
  });

/** The events a stage with a JWT issuer deploys, by function name. */
export const jwtRouteEvents = (publicReference = true): RouteEvents =>
  registryEvents({ jwt: true, allowStarScope: allowStarScope(), publicReference });

/**
 * Whether a JWT's `*` scope opens the routes (JWT_ALLOW_STAR_SCOPE=true): by default no route's
 * authorizer accepts it, and the functions drop it from the claims (lib/http/callers.ts).
 */
function allowStarScope(): boolean {
  return setting('JWT_ALLOW_STAR_SCOPE') === 'true';
}

/**
 * The stage's publicReference parameter: true unless it says false. A stage parameter cannot be
 * read before the framework has resolved the params (`MISSING_VARIABLE_DEPENDENCY`): that error
 * is let through, so that the framework resolves the property again once it can, rather than
 * take the default for the stage's choice.
 */
export async function publicReferenceOf(resolveVariable?: ResolveVariable): Promise<boolean> {
  if (!resolveVariable) return true;
  const value = await resolveVariable('param:publicReference');
  return (
    String(value ?? true)
      .trim()
      .toLowerCase() !== 'false'
  );
}
