// A local-only serverless plugin (listed after serverless-offline): API Gateway's JWT authorizer,
// for a local run of a stage that sets JWT_ISSUER_URL and JWT_AUDIENCE (sls/resolvers/jwt.ts).
// serverless offline never checks a JWT's signature (with --ignoreJWTSignature it only decodes
// the token, without it it does not start), so the local configuration leaves the routes'
// authorizer out and this does what API Gateway does before such a route reaches its function:
// - the issuer's keys come from its OpenID configuration (<issuer>/.well-known/openid-configuration,
//   then its jwks_uri), as API Gateway fetches them;
// - the token is RS256, signed by one of those keys, of that issuer, not expired (exp required)
//   nor early (nbf), for one of the audiences (`aud`, or `client_id`);
// - where the route names scopes, the token's `scope` (or `scp`) holds one of them.
// A refusal is the service's envelope (401/`200`, 403/`210`), as the local stack answers every
// error; deployed, API Gateway answers with its own body (docs/errors.md).
import type { Request } from '@hapi/hapi';
import type { JWTPayload } from 'jose';
import { CallerAuthError, CallerScopeError } from '../../lib/core/errors.ts';
import { encodeError, negotiateErrorFormat } from '../../lib/http/envelope.ts';
import { jwtRouteEvents } from '../resolvers/routes.ts';
import { type Authorizer, at, offlineServer, type Plugin, type Serverless } from '../serverless.ts';

/** Checks a request's Authorization header for a route's scopes: the caller's claims. */
type Verifier = (
  authorization: string | undefined,
  scopes: readonly string[] | undefined,
) => Promise<JWTPayload>;

/**
 * serverless offline builds the event's authorizer from this header (or deletes it): the
 * verified claims go there, and a caller's own is removed first, so that nobody can hand the
 * function claims of their own.
 */
const OVERRIDE = 'sls-offline-authorizer-override';

/** Removes a header from the request, where serverless offline reads it (the raw list too). */
function removeHeader(request: Request, name: string): void {
  delete request.headers[name];
  const raw = request.raw.req.rawHeaders;
  for (let i = raw.length - 2; i >= 0; i -= 2) {
    if (String(raw[i]).toLowerCase() === name) raw.splice(i, 2);
  }
}

/** A request header's text (undefined when absent). */
function headerOf(request: Request, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' ? value : undefined;
}

function setHeader(request: Request, name: string, value: string): void {
  removeHeader(request, name);
  request.headers[name] = value;
  request.raw.req.rawHeaders.push(name, value);
}

/** The claims as API Gateway passes them to a function: every value text, a list as "[a b]". */
function asGatewayClaims(claims: JWTPayload): Record<string, string> {
  return Object.fromEntries(
    Object.entries(claims).map(([name, value]) => [
      name,
      Array.isArray(value) ? `[${value.join(' ')}]` : String(value),
    ]),
  );
}

/** The token's scopes: `scope` "a b", or `scp` as a list or text. */
function scopesOf(claims: JWTPayload): string[] {
  const raw = claims.scope ?? claims.scp;
  if (Array.isArray(raw)) return raw.map(String);
  return typeof raw === 'string' ? raw.split(/\s+/).filter(Boolean) : [];
}

/**
 * A verifier of one authorizer's tokens: resolves the caller's claims, or throws the envelope's
 * error. The issuer's key set is fetched on first use and kept (jose refetches it for an unknown
 * key id, as a rotation needs).
 */
function verifierOf(authorizer: Authorizer): Verifier {
  const issuer = authorizer.issuerUrl ?? '';
  const audiences = [authorizer.audience ?? []].flat();
  let keys: ReturnType<typeof import('jose').createRemoteJWKSet> | undefined;
  const keySet = async () => {
    if (!keys) {
      const { createRemoteJWKSet } = await import('jose');
      const discovery = `${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;
      const answer = await fetch(discovery);
      if (!answer.ok) throw new Error(`${discovery} answered ${answer.status}`);
      const jwksUri = at(await answer.json(), 'jwks_uri');
      keys = createRemoteJWKSet(new URL(String(jwksUri)));
    }
    return keys;
  };
  return async (authorization, scopes) => {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
    if (!match) {
      throw new CallerAuthError(
        (authorization ?? '').trim() === '' ? 'missing-token' : 'not-bearer',
      );
    }
    let claims: JWTPayload;
    try {
      const { jwtVerify } = await import('jose');
      ({ payload: claims } = await jwtVerify(match[1]!, await keySet(), {
        issuer,
        algorithms: ['RS256'],
        requiredClaims: ['exp'],
      }));
    } catch {
      throw new CallerAuthError();
    }
    const tokenAudiences = [claims.aud ?? []].flat();
    const audienceOk =
      tokenAudiences.some((audience) => audiences.includes(audience)) ||
      (typeof claims.client_id === 'string' && audiences.includes(claims.client_id));
    if (!audienceOk) throw new CallerAuthError();
    if (scopes && scopes.length > 0) {
      const held = scopesOf(claims);
      if (!scopes.some((scope) => held.includes(scope))) throw new CallerScopeError(scopes[0]!);
    }
    return claims;
  };
}

export default class OfflineJwt implements Plugin {
  readonly serverless: Serverless;
  readonly hooks: Plugin['hooks'];

  constructor(serverless: Serverless) {
    this.serverless = serverless;
    this.hooks = { 'after:offline:start:init': () => this.install() };
  }

  /**
   * Each route the deployed stage puts behind the authorizer, "METHOD /path" (method `*` for
   * ANY) to its scopes: the events the template carries (sls/resolvers/routes.ts), which the
   * local configuration leaves out because serverless offline cannot check them.
   */
  routesBehind(name: string): Map<string, readonly string[] | undefined> {
    const routes = new Map<string, readonly string[] | undefined>();
    // The reference's routes are behind it too where the stage turns its public reference off.
    const publicReference =
      String(this.serverless.service.functions?.openapi?.environment?.PUBLIC_REFERENCE ?? true) !==
      'false';
    for (const events of Object.values(jwtRouteEvents(publicReference))) {
      for (const { httpApi } of events) {
        if (httpApi.authorizer?.name !== name) continue;
        routes.set(
          `${String(httpApi.method).toUpperCase()} ${httpApi.path}`,
          httpApi.authorizer.scopes,
        );
      }
    }
    return routes;
  }

  install(): void {
    const authorizers = this.serverless.service.provider.httpApi?.authorizers ?? {};
    const [name, authorizer] = Object.entries(authorizers).find(([, a]) => a.type === 'jwt') ?? [];
    if (!name || !authorizer) return;
    const server = offlineServer(this.serverless);
    if (!server) return;
    const routes = this.routesBehind(name);
    const verify = verifierOf(authorizer);

    server.ext('onRequest', (request, h) => {
      removeHeader(request, OVERRIDE);
      return h.continue;
    });
    // Before the body is read, as API Gateway authorizes before it invokes the function.
    server.ext('onPreAuth', async (request, h) => {
      const key = `${request.route.method.toUpperCase()} ${request.route.path}`;
      if (!routes.has(key)) return h.continue;
      try {
        const claims = await verify(headerOf(request, 'authorization'), routes.get(key));
        const scopes = routes.get(key) ? scopesOf(claims) : null;
        setHeader(
          request,
          OVERRIDE,
          JSON.stringify({ jwt: { claims: asGatewayClaims(claims), scopes } }),
        );
        return h.continue;
      } catch (error) {
        const encoded = encodeError(
          error instanceof CallerScopeError || error instanceof CallerAuthError
            ? error
            : new CallerAuthError(),
          negotiateErrorFormat({
            accept: headerOf(request, 'accept'),
            'content-type': headerOf(request, 'content-type'),
          }),
        );
        const reply = h.response(encoded.body).code(encoded.statusCode);
        for (const [header, value] of Object.entries(encoded.headers)) reply.header(header, value);
        return reply.takeover();
      }
    });
  }
}
