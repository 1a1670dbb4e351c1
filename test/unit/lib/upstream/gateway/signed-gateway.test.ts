import { createHmac } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UpstreamError } from '../../../../../lib/core/errors.ts';
import { createLogger } from '../../../../../lib/core/log.ts';
import { signingKeysFrom } from '../../../../../lib/scan-jobs/client.ts';
import { SecretStore } from '../../../../../lib/secrets/store.ts';
import { UpstreamClient } from '../../../../../lib/upstream/client.ts';
import { SignedGateway } from '../../../../../lib/upstream/gateway/signed-gateway.ts';
import { testCall } from '../../../../helpers/call-context.ts';
import {
  gatewayError,
  type ScriptedServer,
  startScriptedServer,
} from '../../../../helpers/scripted-server.ts';
import { memorySecretSource } from '../../../../helpers/secret-source.ts';

const NOW = 1_700_000_000_000;

/** The gateway's check, written out here rather than taken from lib/upstream/gateway/signer.ts. */
function expectedSignature(
  method: string,
  uri: string,
  timestamp: string,
  accessKey: string,
  secretKey: string,
) {
  return createHmac('sha256', secretKey)
    .update(`${method} ${uri}\n${timestamp}\n${accessKey}`)
    .digest('base64');
}

/** The gateway's `Date` header: its own clock, which the client compares with its own. */
function atGatewayTime(res: ServerResponse, gatewayNow: number) {
  res.setHeader('date', new Date(gatewayNow).toUTCString());
}

describe('SignedGateway', () => {
  let server: ScriptedServer;
  let dispatcher: Agent;
  beforeAll(async () => {
    server = await startScriptedServer();
    dispatcher = new Agent();
  });
  afterAll(async () => {
    await dispatcher.close();
    await server.close();
  });

  function gateway(
    secret: ReturnType<typeof memorySecretSource>,
    base = server.url.href,
    vendor = 'platform',
  ) {
    let now = NOW;
    return new SignedGateway({
      baseUrl: new URL(base),
      vendor,
      credentials: signingKeysFrom(
        new SecretStore(secret.source, { ttlMs: 300_000, now: () => (now += 10_000) }),
      ),
      http: new UpstreamClient({ dispatcher, timeoutMs: 5000, random: () => 0 }),
      service: 'scan-jobs',
      now: () => NOW,
    });
  }

  it('signs exactly the path and query it sends, under the base path, with the vendor word', async () => {
    server.received.length = 0;
    server.script = (_req, res) => res.end('{"resources":{}}');
    const secret = memorySecretSource({
      iam: { accessKey: 'AK', secretKey: 'SK' },
      apiKey: 'APIKEY',
    });
    await gateway(secret, `${server.url.href}prefix/`, 'NCP').call(
      {
        method: 'GET',
        path: '/api/v1/jobs',
        query: [
          ['page', '2'],
          ['limit', '5'],
        ],
      },
      testCall(),
    );
    const request = server.received[0]!;
    expect(request.url).toBe('/prefix/api/v1/jobs?page=2&limit=5');
    expect(request.headers['x-ncp-apigw-timestamp']).toBe(String(NOW));
    expect(request.headers['x-ncp-iam-access-key']).toBe('AK');
    expect(request.headers['x-ncp-apigw-api-key']).toBe('APIKEY');
    expect(request.headers['x-ncp-apigw-signature-v2']).toBe(
      expectedSignature('GET', request.url, String(NOW), 'AK', 'SK'),
    );
  });

  it('sends JSON bodies with their Content-Type', async () => {
    server.received.length = 0;
    server.script = (_req, res) => res.end('{}');
    const secret = memorySecretSource({ iam: { accessKey: 'AK', secretKey: 'SK' } });
    await gateway(secret).call(
      {
        method: 'POST',
        path: '/api/v1/jobs/search',
        json: { searchType: '' },
      },
      testCall(),
    );
    const request = server.received[0]!;
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.body.toString()).toBe('{"searchType":""}');
    expect(request.headers['x-platform-apigw-api-key']).toBeUndefined();
  });

  it('throws the decoded upstream error', async () => {
    server.script = (_req, res) => gatewayError(res, 404, '300', 'Not Found Exception');
    const secret = memorySecretSource({ iam: { accessKey: 'AK', secretKey: 'SK' } });
    const attempt = gateway(secret).call({ method: 'GET', path: '/nope' }, testCall());
    await expect(attempt).rejects.toBeInstanceOf(UpstreamError);
    await expect(attempt).rejects.toMatchObject({ status: 404, code: '300' });
  });

  it('fetches the secret again once after an authentication failure and re-signs', async () => {
    server.received.length = 0;
    const secret = memorySecretSource({ iam: { accessKey: 'OLD', secretKey: 'SK' } });
    const gw = gateway(secret);
    // The secret is rotated while the call signed with the old one is refused.
    server.script = (req, res) => {
      if (req.headers['x-platform-iam-access-key'] === 'NEW') return res.end('{"ok":true}');
      atGatewayTime(res, NOW);
      secret.state.text = JSON.stringify({ iam: { accessKey: 'NEW', secretKey: 'SK2' } });
      gatewayError(res, 401, '200', 'Authentication Failed');
    };
    const response = await gw.call({ method: 'PATCH', path: '/api/v1/jobs/1/cancel' }, testCall());
    expect(response.status).toBe(200);
    expect(server.received.map((r) => r.headers['x-platform-iam-access-key'])).toEqual([
      'OLD',
      'NEW',
    ]);
    expect(secret.state.fetches).toBe(2);
    const last = server.received[1]!;
    expect(last.headers['x-platform-apigw-signature-v2']).toBe(
      expectedSignature('PATCH', '/api/v1/jobs/1/cancel', String(NOW), 'NEW', 'SK2'),
    );
  });

  it('does not resend when the refreshed secret has the same credentials', async () => {
    server.received.length = 0;
    server.script = (_req, res) => {
      atGatewayTime(res, NOW);
      gatewayError(res, 401, '200', 'Authentication Failed');
    };
    const secret = memorySecretSource({ iam: { accessKey: 'SAME', secretKey: 'SK' } });
    const attempt = gateway(secret).call({ method: 'GET', path: '/api/v1/jobs' }, testCall());
    // The refusal stands: the operator's 500/900, never the caller's 401.
    await expect(attempt).rejects.toMatchObject({
      status: 500,
      code: '900',
      refusal: { status: 401, code: '200' },
    });
    expect(server.received).toHaveLength(1);
    expect(secret.state.fetches).toBe(2);
  });

  it("does not refresh for a permission failure (210), which is the operator's all the same", async () => {
    server.script = (_req, res) => gatewayError(res, 401, '210', 'Permission Denied');
    const secret = memorySecretSource({ iam: { accessKey: 'AK', secretKey: 'SK' } });
    await expect(
      gateway(secret).call({ method: 'GET', path: '/x' }, testCall()),
    ).rejects.toMatchObject({
      status: 500,
      code: '900',
      refusal: { status: 401, code: '210' },
    });
    expect(secret.state.fetches).toBe(1);
  });

  describe('a drifting clock', () => {
    const MINUTE = 60_000;
    /** A gateway whose clock is NOW + skew: it refuses timestamps 5 minutes or more away. */
    function skewedGateway(skewMs: number) {
      server.received.length = 0;
      server.script = (req, res) => {
        const gatewayNow = NOW + skewMs;
        atGatewayTime(res, gatewayNow);
        const stamp = Number(req.headers['x-platform-apigw-timestamp']);
        if (Math.abs(stamp - gatewayNow) >= 5 * MINUTE) {
          return gatewayError(res, 401, '200', 'Authentication Failed');
        }
        res.end('{"ok":true}');
      };
    }

    function loggedGateway(secret: ReturnType<typeof memorySecretSource>) {
      const lines: string[] = [];
      let storeNow = NOW;
      const gw = new SignedGateway({
        baseUrl: server.url,
        vendor: 'platform',
        // The store's clock moves on, so that a refusal may refresh the secret.
        credentials: signingKeysFrom(
          new SecretStore(secret.source, {
            ttlMs: 300_000,
            now: () => (storeNow += 10_000),
          }),
        ),
        http: new UpstreamClient({ dispatcher, timeoutMs: 5000, random: () => 0 }),
        service: 'scan-jobs',
        now: () => NOW,
        log: createLogger({}, (line) => lines.push(line)),
      });
      return { gw, lines };
    }

    it('signs once more with the gateway clock, then keeps the offset for later calls', async () => {
      skewedGateway(6 * MINUTE);
      const secret = memorySecretSource({ iam: { accessKey: 'AK', secretKey: 'SK' } });
      const { gw, lines } = loggedGateway(secret);
      expect(
        (await gw.call({ method: 'PATCH', path: '/api/v1/jobs/1/cancel' }, testCall())).status,
      ).toBe(200);
      expect(server.received).toHaveLength(2);
      expect(server.received[1]?.headers['x-platform-apigw-timestamp']).toBe(
        String(NOW + 6 * MINUTE),
      );
      // Signed right the first time from now on; no secret fetch was needed.
      expect((await gw.call({ method: 'GET', path: '/api/v1/jobs' }, testCall())).status).toBe(200);
      expect(server.received).toHaveLength(3);
      expect(secret.state.fetches).toBe(1);
      expect(lines).toHaveLength(1);
      expect(JSON.parse(lines[0]!)).toMatchObject({ level: 'warn', offsetSeconds: 360 });
    });

    it('works the same for a clock that runs ahead', async () => {
      skewedGateway(-7 * MINUTE);
      const { gw } = loggedGateway(
        memorySecretSource({ iam: { accessKey: 'AK', secretKey: 'SK' } }),
      );
      expect((await gw.call({ method: 'GET', path: '/api/v1/jobs' }, testCall())).status).toBe(200);
      expect(server.received).toHaveLength(2);
    });

    it('takes a refusal with a close Date for refused keys: the refresh path, no re-sign', async () => {
      server.received.length = 0;
      server.script = (_req, res) => {
        atGatewayTime(res, NOW + 3 * MINUTE);
        gatewayError(res, 401, '200', 'Authentication Failed');
      };
      const secret = memorySecretSource({ iam: { accessKey: 'AK', secretKey: 'SK' } });
      const { gw, lines } = loggedGateway(secret);
      await expect(
        gw.call({ method: 'GET', path: '/api/v1/jobs' }, testCall()),
      ).rejects.toMatchObject({
        status: 500,
        refusal: { status: 401 },
      });
      expect(server.received).toHaveLength(1);
      expect(secret.state.fetches).toBe(2);
      // No clock warning: the refusal was the keys' (the call's own log says so, not this one).
      expect(lines).toHaveLength(0);
    });
  });
});
