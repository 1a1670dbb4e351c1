/**
 * The secret read through the AWS Parameters and Secrets Lambda Extension: against a loopback
 * server that answers as the extension does (GET /secretsmanager/get, the session token in
 * X-Aws-Parameters-Secrets-Token, GetSecretValue's JSON), and the SDK taking over when no
 * extension listens.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  extensionOrSdkSource,
  extensionSecretSource,
  type SecretSource,
} from '../../../../lib/secrets/sources.ts';
import { findFreePort } from '../../../../scripts/local/ports.ts';

const TOKEN = 'session-token';
const SECRET = '{"apiKey":"gateway-api-key"}';

let server: Server;
let port = 0;
const seen: IncomingMessage[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(req);
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (req.headers['x-aws-parameters-secrets-token'] !== TOKEN) {
      res.writeHead(401).end('{"error":"missing token"}');
      return;
    }
    if (url.pathname !== '/secretsmanager/get' || url.searchParams.get('secretId') !== 'gw/dev') {
      res.writeHead(400).end('{"error":"not found"}');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ Name: 'gw/dev', SecretString: SECRET }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

const extension = (options: { token?: string; secretId?: string; port?: number } = {}) =>
  extensionSecretSource({
    secretId: options.secretId ?? 'gw/dev',
    port: options.port ?? port,
    token: options.token ?? TOKEN,
    host: '127.0.0.1',
  });

describe('the secrets extension source', () => {
  it('reads the secret with the session token', async () => {
    await expect(extension().fetchText()).resolves.toBe(SECRET);
    expect(seen.at(-1)?.url).toBe('/secretsmanager/get?secretId=gw%2Fdev');
  });

  it("reports the extension's refusal by its status, never a value", async () => {
    await expect(extension({ token: 'wrong' }).fetchText()).rejects.toThrow(/answered 401/);
    await expect(extension({ secretId: 'other' }).fetchText()).rejects.toThrow(/answered 400/);
  });

  it('gives way to the SDK for good when no extension listens, and only then', async () => {
    const sdkReads: string[] = [];
    const sdk: SecretSource = {
      description: 'sdk',
      fetchText: async () => {
        sdkReads.push('read');
        return '{"from":"sdk"}';
      },
    };
    const fallbacks: string[] = [];
    const absent = extensionOrSdkSource(extension({ port: await findFreePort() }), sdk, (reason) =>
      fallbacks.push(reason),
    );
    await expect(absent.fetchText()).resolves.toBe('{"from":"sdk"}');
    await expect(absent.fetchText()).resolves.toBe('{"from":"sdk"}');
    expect(fallbacks).toHaveLength(1);
    expect(absent.description).toBe('sdk');

    const refusing = extensionOrSdkSource(extension({ token: 'wrong' }), sdk);
    await expect(refusing.fetchText()).rejects.toThrow(/answered 401/);
    expect(sdkReads).toHaveLength(2);
  });
});
