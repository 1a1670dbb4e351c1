'use strict';
// serverless.yml reads each HTTP function's `httpApi` events from the route registry
// (lib/http/routes/), so that a route is declared once: sls/resolvers/functions.cjs gives each
// function the events of its routes.
const { lib } = require('../lib.cjs');
const { setting } = require('./deploy-env.cjs');
const { isLocal } = require('./local.cjs');

const registry = lib('routes');

/** serverless offline and invoke local (IS_OFFLINE=true forces it, as serverless.yml reads it). */
const local = () => process.env.IS_OFFLINE === 'true' || isLocal() === 'true';

/**
 * With a JWT issuer (sls/resolvers/jwt.cjs), routes with a caller are behind the JWT authorizer
 * when packaged. Not locally: serverless offline cannot check a JWT's signature (and fails to
 * start on such a route unless told to ignore it); sls/plugins/offline-jwt.cjs checks them there,
 * from the same events (jwtRouteEvents).
 */
module.exports.httpApiEvents = async ({ resolveVariable }) =>
  registry.httpApiEvents({
    jwt: Boolean(setting('JWT_ISSUER_URL')) && !local(),
    allowStarScope: allowStarScope(),
    publicReference: await publicReferenceOf(resolveVariable),
  });

module.exports.publicReferenceOf = publicReferenceOf;

/** The events a stage with a JWT issuer deploys, by function name. */
module.exports.jwtRouteEvents = (publicReference = true) =>
  registry.httpApiEvents({ jwt: true, allowStarScope: allowStarScope(), publicReference });

/**
 * Whether a JWT's `*` scope opens the routes (JWT_ALLOW_STAR_SCOPE=true): by default no route's
 * authorizer accepts it, and the functions drop it from the claims (lib/http/callers.ts).
 */
function allowStarScope() {
  return setting('JWT_ALLOW_STAR_SCOPE') === 'true';
}

/**
 * The stage's publicReference parameter: true unless it says false. A stage parameter cannot be
 * read before the framework has resolved the params (`MISSING_VARIABLE_DEPENDENCY`): that error
 * is let through, so that the framework resolves the property again once it can, rather than
 * take the default for the stage's choice.
 */
async function publicReferenceOf(resolveVariable) {
  if (!resolveVariable) return true;
  const value = await resolveVariable('param:publicReference');
  return (
    String(value ?? true)
      .trim()
      .toLowerCase() !== 'false'
  );
}
