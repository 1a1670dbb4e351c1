// JWT callers, as variable resolvers for serverless.yml:
// `${file(./sls/variables.cjs):jwt.authorizers}`. A stage may set JWT_ISSUER_URL and
// JWT_AUDIENCE (comma-separated) instead of the secret's caller tokens: API Gateway's own JWT
// authorizer checks each token (signature against the issuer's keys, expiry, audience or
// client_id) and each route's scopes (sls/resolvers/routes.ts, from the route registry), and the
// functions read the caller from the claims.
import type { Authorizer } from '../serverless.ts';
import { setting } from './deploy-env.ts';

/** The authorizer's name, as the routes name it (lib/http/routes/index.ts). */
const NAME = 'callerJwt';

/** provider.httpApi.authorizers: the JWT authorizer when the stage sets an issuer, else none. */
export const authorizers = async (): Promise<Record<string, Authorizer>> => {
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
