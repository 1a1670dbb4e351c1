import { Agent } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { UpstreamTimeoutError, UpstreamUnreachableError } from '../../../../lib/errors.js';
import { UpstreamClient } from '../../../../lib/http/client.js';
import {
  gatewayError,
  type ScriptedServer,
  startScriptedServer,
} from '../../../helpers/scriptedServer.js';

describe('UpstreamClient', () => {
  let server: ScriptedServer;
  let dispatcher: Agent;
  // No waiting between attempts: random() = 0 makes full jitter wait 0 ms.
  const client = (timeoutMs = 5000) =>
    new UpstreamClient({ dispatcher, timeoutMs, random: () => 0 });
  const url = () => new URL('/api/v1/jobs?page=1&limit=10', server.url);

  beforeAll(async () => {
    server = await startScriptedServer();
    dispatcher = new Agent();
  });
  afterEach(() => {
    server.received.length = 0;
  });
  afterAll(async () => {
    await dispatcher.close();
    await server.close();
  });

  it('sends the path and query exactly as given, and returns status, headers and bytes', async () => {
    server.script = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json;charset=UTF-8', 'x-extra': 'yes' });
      res.end(Buffer.from('{"ok":"한"}'));
    };
    const response = await client().send({ method: 'GET', url: url(), headers: { 'x-a': '1' } });
    expect(server.received[0]?.url).toBe('/api/v1/jobs?page=1&limit=10');
    expect(server.received[0]?.headers['x-a']).toBe('1');
    expect(response.status).toBe(200);
    expect(response.headers['x-extra']).toBe('yes');
    expect(response.body.toString('utf8')).toBe('{"ok":"한"}');
    expect(response.attempts).toBe(1);
  });

  it('retries an idempotent call on 503 and 504 until it succeeds', async () => {
    server.script = (_req, res, index) => {
      if (index === 0) return gatewayError(res, 503, '500');
      if (index === 1) return gatewayError(res, 504, '510');
      res.end('{}');
    };
    const response = await client().send({ method: 'GET', url: url() });
    expect(response.status).toBe(200);
    expect(response.attempts).toBe(3);
  });

  it('does not repeat a POST that reached the upstream', async () => {
    server.script = (_req, res) => gatewayError(res, 503, '500');
    const response = await client().send({ method: 'POST', url: url(), body: '{}' });
    expect(response.status).toBe(503);
    expect(server.received).toHaveLength(1);
  });

  it('repeats a POST declared idempotent (a search)', async () => {
    server.script = (_req, res, index) =>
      index === 0 ? gatewayError(res, 503, '500') : res.end('{}');
    const response = await client().send({
      method: 'POST',
      url: url(),
      body: '{}',
      idempotent: true,
    });
    expect(response.status).toBe(200);
    expect(server.received).toHaveLength(2);
  });

  it.each(['410', '420'])('retries gateway throttling 429/%s, even for a POST', async (code) => {
    server.script = (_req, res, index) =>
      index < 2 ? gatewayError(res, 429, code) : res.end('{}');
    const response = await client().send({ method: 'POST', url: url(), body: '{}' });
    expect(response.status).toBe(200);
    expect(server.received).toHaveLength(3);
  });

  it('does not retry an exhausted quota (429/400)', async () => {
    server.script = (_req, res) => gatewayError(res, 429, '400', 'Quota Exceeded');
    const response = await client().send({ method: 'GET', url: url() });
    expect(response.status).toBe(429);
    expect(server.received).toHaveLength(1);
  });

  it('gives up after the maximum number of attempts', async () => {
    server.script = (_req, res) => gatewayError(res, 503, '500');
    const response = await client().send({ method: 'GET', url: url() });
    expect(response.status).toBe(503);
    expect(response.attempts).toBe(4);
    expect(server.received).toHaveLength(4);
  });

  it('does not wait past the deadline (Retry-After longer than the time left)', async () => {
    server.script = (_req, res) => {
      res.writeHead(503, { 'retry-after': '30', 'content-type': 'application/json' });
      res.end('{"error":{"errorCode":"500","message":"Endpoint Error"}}');
    };
    const response = await client(2000).send({ method: 'GET', url: url() });
    expect(response.status).toBe(503);
    expect(server.received).toHaveLength(1);
  });

  it('retries a GET whose connection was reset, and succeeds', async () => {
    server.script = (_req, res, index) => (index === 0 ? res.socket?.destroy() : res.end('{}'));
    const response = await client().send({ method: 'GET', url: url() });
    expect(response.status).toBe(200);
    expect(server.received).toHaveLength(2);
  });

  it('maps a reset POST to 503/500 without repeating it', async () => {
    server.script = (_req, res) => res.socket?.destroy();
    const attempt = client().send({ method: 'POST', url: url(), body: '{}' });
    await expect(attempt).rejects.toBeInstanceOf(UpstreamUnreachableError);
    await expect(attempt).rejects.toMatchObject({ status: 503, code: '500' });
    expect(server.received).toHaveLength(1);
  });

  it('maps a refused connection to 503/500', async () => {
    const closed = await startScriptedServer();
    const target = new URL('/x', closed.url);
    await closed.close();
    await expect(client().send({ method: 'GET', url: target })).rejects.toMatchObject({
      status: 503,
      code: '500',
    });
  });

  it('maps an upstream that does not answer in time to 504/510, without retrying', async () => {
    server.script = () => {
      // Never answers.
    };
    const attempt = client(300).send({ method: 'GET', url: url() });
    await expect(attempt).rejects.toBeInstanceOf(UpstreamTimeoutError);
    await expect(attempt).rejects.toMatchObject({ status: 504, code: '510' });
    expect(server.received).toHaveLength(1);
  });

  it("never goes past the function's remaining time", async () => {
    server.script = () => {};
    const attempt = client(60_000).send({ method: 'GET', url: url() }, { remainingMs: () => 600 });
    await expect(attempt).rejects.toBeInstanceOf(UpstreamTimeoutError);
  });

  it('fails at once when no time is left', async () => {
    const attempt = client(60_000).send({ method: 'GET', url: url() }, { remainingMs: () => 100 });
    await expect(attempt).rejects.toBeInstanceOf(UpstreamTimeoutError);
    expect(server.received).toHaveLength(0);
  });

  it("stops when the caller's signal aborts", async () => {
    server.script = () => {};
    const controller = new AbortController();
    const attempt = client(60_000).send(
      { method: 'GET', url: url() },
      { signal: controller.signal },
    );
    setTimeout(() => controller.abort(), 50);
    await expect(attempt).rejects.toBeInstanceOf(UpstreamTimeoutError);
  });
});
