'use strict';
// JWT callers, as variable resolvers for serverless.yml: `${file(./sls/resolvers/jwt.cjs):authorizers}`.
// A stage may set JWT_ISSUER_URL and JWT_AUDIENCE (comma-separated) instead of the secret's
// caller tokens: API Gateway's own JWT authorizer checks each token (signature against the
// issuer's keys, expiry, audience or client_id) and each route's scopes (sls/resolvers/routes.cjs,
// from the route registry), and the functions read the caller from the claims.
const { setting } = require('./deploy-env.cjs');

/** The authorizer's name, as the routes name it (lib/http/routes/index.ts). */
const NAME = 'callerJwt';

/** provider.httpApi.authorizers: the JWT authorizer when the stage sets an issuer, else none. */
const authorizers = async () => {
  const issuerUrl = setting('JWT_ISSUER_URL');
  if (!issuerUrl) return {};
  return {
    [NAME]: {
      type: 'jwt',
      identitySource: '$request.header.Authorization',
      issuerUrl,
      audience: setting('JWT_AUDIENCE')
        .split(',')
        .map((audience) => audience.trim())
        .filter(Boolean),
    },
  };
};

module.exports = { NAME, authorizers };
