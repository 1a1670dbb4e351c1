/**
 * A stage with its settings, on one serverless offline: a JWT issuer and CORS origins.
 *
 * JWT callers, with tokens signed by a key this test makes and an issuer it serves on loopback
 * (its OpenID configuration and JWKS): the local stand-in of API Gateway's JWT authorizer checks
 * signature, expiry, audience and the route's scopes, and the function reads the caller from the
 * claims and checks a scope built from the path.
 *
 * CORS as the stage configures it (sls/plugins/offline-cors.ts applying provider.httpApi.cors
 * as API Gateway does): with corsAllowedOrigins, a preflight from an allowed origin is answered
 * 204 with what it may send, answers to it carry Access-Control-Allow-Origin, refusals too, and
 * another origin gets none of it. (By default, none: local-stack/cors.ts.) One stack for both:
 * each boot of serverless offline builds every function again.
 */
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoSecretFor, startEmulator } from '../../emulator/index.ts';
import { secretFile } from '../helpers/platform.ts';
import { APP, get as corsGet, corsHeadersOf, OTHER, preflight } from './cors-requests.ts';
import { type RunningOffline, startOffline } from './offline.ts';

const BOOT_TIMEOUT_MS = 180_000;
const AUDIENCE = 'platform-gateway';

/** An RSA key pair with its public JWK, as an issuer publishes it. */
function keyPair(kid: string) {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    privateKey,
    jwk: { ...publicKey.export({ format: 'jwk' }), kid, alg: 'RS256', use: 'sig' },
  };
}

describe('JWT callers (serverless offline, a local issuer)', () => {
  let emulator: Awaited<ReturnType<typeof startEmulator>> | undefined;
  let offline: RunningOffline | undefined;
  let issuerServer: Server;
  let issuer = '';
  const issued = keyPair('key-1');
  const stranger = keyPair('key-1');

  const sign = (
    claims: Record<string, unknown>,
    options: { key?: KeyObject; expiresIn?: string | number; audience?: string } = {},
  ) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', kid: 'key-1' })
      .setIssuer(issuer)
      .setAudience(options.audience ?? AUDIENCE)
      .setIssuedAt()
      .setExpirationTime(options.expiresIn ?? '5m')
      .sign(options.key ?? issued.privateKey);

  beforeAll(async () => {
    issuerServer = createServer((req, res) => {
      res.setHeader('content-type', 'application/json');
      if (req.url === '/.well-known/openid-configuration') {
        res.end(JSON.stringify({ issuer, jwks_uri: `${issuer}/jwks.json` }));
      } else if (req.url === '/jwks.json') {
        res.end(JSON.stringify({ keys: [issued.jwk] }));
      } else res.writeHead(404).end('{}');
    });
    await new Promise<void>((resolve) => issuerServer.listen(0, '127.0.0.1', resolve));
    issuer = `http://127.0.0.1:${(issuerServer.address() as AddressInfo).port}`;
    emulator = await startEmulator({ port: 0, vendor: 'platform', quiet: true });
    offline = await startOffline(
      {
        SCAN_BASE_URL: emulator.url,
        OPENAPI_BASE_URL: emulator.url,
        GATEWAY_VENDOR: 'platform',
        SECRETS_SOURCE: 'file',
        SECRETS_FILE: await secretFile(demoSecretFor(emulator.url)),
        JWT_ISSUER_URL: issuer,
        JWT_AUDIENCE: AUDIENCE,
      },
      { params: [`corsAllowedOrigins=${APP}`] },
    );
  }, BOOT_TIMEOUT_MS);

  afterAll(async () => {
    await offline?.stop();
    await emulator?.close();
    await new Promise((resolve) => issuerServer?.close(resolve));
  }, 30_000);

  const get = async (path: string, token?: string) => {
    const response = await fetch(`${offline!.baseUrl}${path}`, {
      headers: token ? { authorization: `Bearer ${token}` } : {},
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  it("lets a token with the route's scope through, the caller named by its sub", async () => {
    const token = await sign({ sub: 'reporting', scope: 'jobs:read' });
    const { status } = await get('/jobs', token);
    expect(status, offline!.output()).toBe(200);
    expect(offline!.output()).toContain('"caller":"reporting"');
    expect(offline!.output()).not.toContain(token);
  });

  it('refuses a valid token without the scope with 403/210', async () => {
    const token = await sign({ sub: 'reporting', scope: 'jobs:read' });
    const patch = await fetch(`${offline!.baseUrl}/jobs/2810016/stop`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(patch.status).toBe(403);
    expect(await patch.json()).toMatchObject({ error: { errorCode: '210' } });
  });

  it('refuses an expired token, a wrongly signed one, another audience or none with 401/200', async () => {
    const claims = { sub: 'reporting', scope: 'jobs:read' };
    for (const token of [
      await sign(claims, { expiresIn: Math.floor(Date.now() / 1000) - 60 }),
      await sign(claims, { key: stranger.privateKey }),
      await sign(claims, { audience: 'someone-else' }),
      'not-a-jwt',
      undefined,
    ]) {
      const { status, body } = await get('/jobs', token);
      expect(status, String(token)).toBe(401);
      expect(body).toEqual({
        error: {
          errorCode: '200',
          message: 'Authentication Failed',
          details:
            token === undefined
              ? 'No Authorization header: send "Authorization: Bearer <token>".'
              : 'The bearer token is unknown or has expired.',
        },
      });
    }
  });

  it('checks a scope built from the path in the function: actions:echo runs echo, not hello', async () => {
    const token = await sign({ client_id: 'echo-bot', scope: 'actions:echo' });
    const run = (name: string) =>
      fetch(`${offline!.baseUrl}/actions/${name}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: '{"name":"Ada"}',
      });
    expect((await run('echo')).status).toBe(200);
    const hello = await run('hello');
    expect(hello.status).toBe(403);
    expect(await hello.json()).toMatchObject({ error: { errorCode: '210' } });
    expect(emulator!.actions.activations().map((a) => a.name)).toEqual(['echo']);
  });

  it('ignores claims a caller hands serverless offline itself (its authorizer override header)', async () => {
    const token = await sign({ sub: 'echo-bot', scope: 'actions:echo' });
    const forged = JSON.stringify({ jwt: { claims: { iss: issuer, sub: 'admin', scope: '*' } } });
    const hello = await fetch(`${offline!.baseUrl}/actions/hello`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        'sls-offline-authorizer-override': forged,
      },
      body: '{"name":"Ada"}',
    });
    expect(hello.status).toBe(403);
  });

  it("no longer takes the secret's caller tokens", async () => {
    const { status } = await get('/jobs', 'demo-caller-token-for-local-use-only');
    expect(status).toBe(401);
  });
  describe('CORS with corsAllowedOrigins', () => {
    const reader = () => sign({ sub: 'reporting', scope: 'jobs:read' });

    it('answers a preflight from an allowed origin 204, with what it may send; no credentials', async () => {
      const response = await preflight(offline!.baseUrl, APP);
      expect(response.status, offline!.output()).toBe(204);
      const headers = corsHeadersOf(response);
      expect(headers['access-control-allow-origin']).toBe(APP);
      expect(headers['access-control-allow-methods']?.split(',')).toContain('GET');
      expect(headers['access-control-allow-headers']?.split(',')).toContain('Authorization');
      expect(headers['access-control-max-age']).toBe('600');
      expect(headers['access-control-allow-credentials']).toBeUndefined();
    });

    it('answers a preflight from another origin with no CORS header', async () => {
      const response = await preflight(offline!.baseUrl, OTHER);
      expect(response.status).toBe(204);
      expect(corsHeadersOf(response)).toEqual({});
    });

    it('lets an allowed origin read answers, errors too; another origin none', async () => {
      const ok = await corsGet(offline!.baseUrl, APP, await reader());
      expect(ok.status).toBe(200);
      await ok.arrayBuffer();
      expect(corsHeadersOf(ok)).toMatchObject({ 'access-control-allow-origin': APP });
      expect(corsHeadersOf(ok)['access-control-expose-headers']).toMatch(/Retry-After/);
      const refused = await corsGet(offline!.baseUrl, APP, 'not-a-known-token');
      expect(refused.status).toBe(401);
      await refused.arrayBuffer();
      expect(refused.headers.get('access-control-allow-origin')).toBe(APP);
      const other = await corsGet(offline!.baseUrl, OTHER, await reader());
      expect(other.status).toBe(200);
      await other.arrayBuffer();
      expect(corsHeadersOf(other)).toEqual({});
    });
  });
});
