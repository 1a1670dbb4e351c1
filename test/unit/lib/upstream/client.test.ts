import type { ServerResponse } from 'node:http';
import { Agent } from 'undici';
import {
  afterAll,
  afterEach,
  beforeAll,
  describe,
  expect,
  it,
  type OnTestFinishedHandler,
} from 'vitest';
import {
  UpstreamResponseTooLargeError,
  UpstreamTimeoutError,
  UpstreamUnreachableError,
} from '../../../../lib/core/errors.ts';
import {
  MAX_ERROR_BODY_BYTES,
  MAX_UPSTREAM_BODY_BYTES,
  UpstreamClient,
} from '../../../../lib/upstream/client.ts';
import { decodeUpstreamError } from '../../../../lib/upstream/error-decoding.ts';
import { testCall } from '../../../helpers/call-context.ts';
import {
  drip,
  gatewayError,
  type Script,
  type ScriptedServer,
  startScriptedServer,
} from '../../../helpers/scripted-server.ts';

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
    const response = await client().send(
      { method: 'GET', url: url(), headers: { 'x-a': '1' } },
      testCall(),
    );
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
    const response = await client().send({ method: 'GET', url: url() }, testCall());
    expect(response.status).toBe(200);
    expect(response.attempts).toBe(3);
  });

  it('does not repeat a POST that reached the upstream', async () => {
    server.script = (_req, res) => gatewayError(res, 503, '500');
    const response = await client().send({ method: 'POST', url: url(), body: '{}' }, testCall());
    expect(response.status).toBe(503);
    expect(server.received).toHaveLength(1);
  });

  it('repeats a POST declared idempotent (a search)', async () => {
    server.script = (_req, res, index) =>
      index === 0 ? gatewayError(res, 503, '500') : res.end('{}');
    const response = await client().send(
      {
        method: 'POST',
        url: url(),
        body: '{}',
        idempotent: true,
      },
      testCall(),
    );
    expect(response.status).toBe(200);
    expect(server.received).toHaveLength(2);
  });

  it.each(['410', '420'])(
    'retries gateway throttling 429/%s, even for a POST, when the gateway says it answered',
    async (code) => {
      server.script = (_req, res, index) =>
        index < 2 ? gatewayError(res, 429, code, 'Throttled', 'APIGW') : res.end('{}');
      const response = await client().send({ method: 'POST', url: url(), body: '{}' }, testCall());
      expect(response.status).toBe(200);
      expect(server.received).toHaveLength(3);
    },
  );

  it.each(['410', '420'])(
    "never repeats a POST answered 429/%s by the endpoint: it is the endpoint's answer",
    async (code) => {
      server.script = (_req, res) => gatewayError(res, 429, code, 'Throttled', 'ENDPOINT');
      const response = await client().send({ method: 'POST', url: url(), body: '{}' }, testCall());
      expect(response.status).toBe(429);
      expect(server.received).toHaveLength(1);
    },
  );

  it('tells an observer how each attempt ended, with the Retry-After asked for', async () => {
    server.script = (_req, res, index) => {
      if (index === 0) {
        res.writeHead(429, {
          'content-type': 'application/json',
          'x-platform-apigw-response-origin': 'APIGW',
          'retry-after': '0.05',
        });
        return res.end(JSON.stringify({ error: { errorCode: '410', message: 'Throttled' } }));
      }
      res.end('{}');
    };
    const seen: [unknown, number][] = [];
    const response = await client().send(
      {
        method: 'PATCH',
        url: url(),
        onAttempt: (outcome, retryAfterMs) => {
          seen.push([outcome, retryAfterMs]);
          throw new Error('an observer that throws changes nothing');
        },
      },
      testCall(),
    );
    expect(response.status).toBe(200);
    expect(seen).toEqual([
      [{ kind: 'answer', status: 429, errorCode: '410', origin: 'gateway' }, 50],
      [{ kind: 'answer', status: 200, origin: 'endpoint' }, 0],
    ]);
  });

  it('repeats a POST throttled without an origin header only when it is idempotent', async () => {
    server.script = (_req, res) => gatewayError(res, 429, '410', 'Throttle Limited');
    const post = await client().send({ method: 'POST', url: url(), body: '{}' }, testCall());
    expect(post.status).toBe(429);
    expect(server.received).toHaveLength(1);
    server.received.length = 0;
    const search = await client().send(
      {
        method: 'POST',
        url: url(),
        body: '{}',
        idempotent: true,
      },
      testCall(),
    );
    expect(search.status).toBe(429);
    expect(server.received).toHaveLength(4);
  });

  it('does not retry an exhausted quota (429/400)', async () => {
    server.script = (_req, res) => gatewayError(res, 429, '400', 'Quota Exceeded');
    const response = await client().send({ method: 'GET', url: url() }, testCall());
    expect(response.status).toBe(429);
    expect(server.received).toHaveLength(1);
  });

  it('gives up after the maximum number of attempts', async () => {
    server.script = (_req, res) => gatewayError(res, 503, '500');
    const response = await client().send({ method: 'GET', url: url() }, testCall());
    expect(response.status).toBe(503);
    expect(response.attempts).toBe(4);
    expect(server.received).toHaveLength(4);
  });

  it('does not wait past the deadline (Retry-After longer than the time left)', async () => {
    server.script = (_req, res) => {
      res.writeHead(503, { 'retry-after': '30', 'content-type': 'application/json' });
      res.end('{"error":{"errorCode":"500","message":"Endpoint Error"}}');
    };
    const response = await client(2000).send({ method: 'GET', url: url() }, testCall());
    expect(response.status).toBe(503);
    expect(server.received).toHaveLength(1);
  });

  it('retries a GET whose connection was reset, and succeeds', async () => {
    server.script = (_req, res, index) => (index === 0 ? res.socket?.destroy() : res.end('{}'));
    const response = await client().send({ method: 'GET', url: url() }, testCall());
    expect(response.status).toBe(200);
    expect(server.received).toHaveLength(2);
  });

  it('maps a reset POST to 503/500 without repeating it', async () => {
    server.script = (_req, res) => res.socket?.destroy();
    const attempt = client().send({ method: 'POST', url: url(), body: '{}' }, testCall());
    await expect(attempt).rejects.toBeInstanceOf(UpstreamUnreachableError);
    await expect(attempt).rejects.toMatchObject({ status: 503, code: '500' });
    expect(server.received).toHaveLength(1);
  });

  it('maps a refused connection to 503/500', async () => {
    const closed = await startScriptedServer();
    const target = new URL('/x', closed.url);
    await closed.close();
    await expect(client().send({ method: 'GET', url: target }, testCall())).rejects.toMatchObject({
      status: 503,
      code: '500',
    });
  });

  it('answers at the deadline while the connection is still being set up', async () => {
    // A connector that never calls back: the TCP handshake of an unreachable host, with no
    // connect timeout of undici's own to end it. Only the call's deadline can.
    const hanging = new Agent({ connect: () => {} });
    try {
      const attempt = new UpstreamClient({ dispatcher: hanging, timeoutMs: 200 }).send(
        {
          method: 'GET',
          url: url(),
        },
        testCall(),
      );
      await expect(attempt).rejects.toBeInstanceOf(UpstreamTimeoutError);
      expect(server.received).toHaveLength(0);
    } finally {
      await hanging.destroy();
    }
  });

  it("never goes past the function's remaining time", async () => {
    server.script = () => {};
    const attempt = client(60_000).send(
      { method: 'GET', url: url() },
      testCall({ remainingMs: () => 600 }),
    );
    await expect(attempt).rejects.toBeInstanceOf(UpstreamTimeoutError);
  });

  it('fails at once when no time is left', async () => {
    const attempt = client(60_000).send(
      { method: 'GET', url: url() },
      testCall({ remainingMs: () => 100 }),
    );
    await expect(attempt).rejects.toBeInstanceOf(UpstreamTimeoutError);
    expect(server.received).toHaveLength(0);
  });
});

/**
 * Each case waits on a deadline of a second or less, on a server of its own: the cases wait side
 * by side.
 */
describe.concurrent('UpstreamClient deadline: one deadline for the whole exchange', () => {
  let dispatcher: Agent;
  const client = (timeoutMs: number) =>
    new UpstreamClient({ dispatcher, timeoutMs, random: () => 0 });
  const slow = (server: ScriptedServer) => new URL('/slow', server.url);

  beforeAll(() => {
    dispatcher = new Agent();
  });
  afterAll(async () => {
    await dispatcher.close();
  });

  /** A server of the case's own, answering with `script`, closed when the case ends. */
  async function serverOf(
    script: Script,
    onTestFinished: (fn: OnTestFinishedHandler) => void,
  ): Promise<ScriptedServer> {
    const server = await startScriptedServer(script);
    onTestFinished(() => server.close());
    return server;
  }

  it('maps an upstream that does not answer in time to 504/510, without retrying', async ({
    expect,
    onTestFinished,
  }) => {
    // Never answers.
    const server = await serverOf(() => {}, onTestFinished);
    // The deadline ends it; a second leaves the request time to arrive on a loaded machine.
    const attempt = client(1000).send({ method: 'GET', url: slow(server) }, testCall());
    await expect(attempt).rejects.toBeInstanceOf(UpstreamTimeoutError);
    await expect(attempt).rejects.toMatchObject({ status: 504, code: '510' });
    expect(server.received).toHaveLength(1);
  });

  it('ends a call whose headers drip in, one byte at a time', async ({
    expect,
    onTestFinished,
  }) => {
    const server = await serverOf((_req, res) => {
      const socket = res.socket!;
      void drip(
        (c) => socket.write(c),
        'HTTP/1.1 200 OK\r\nX-Slow: abcdefghijklmnopqrstuvwxyz\r\n',
        100,
        () => socket.destroyed,
      );
    }, onTestFinished);
    const attempt = client(1000).send({ method: 'GET', url: slow(server) }, testCall());
    await expect(attempt).rejects.toMatchObject({ status: 504, code: '510' });
    expect(server.received).toHaveLength(1);
  });

  it('ends a call whose body drips in, however often a byte arrives', async ({
    expect,
    onTestFinished,
  }) => {
    const server = await serverOf((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      void drip(
        (c) => res.write(c),
        '{"page":"'.padEnd(200, 'x'),
        100,
        () => res.destroyed,
      );
    }, onTestFinished);
    const attempt = client(1000).send({ method: 'PATCH', url: slow(server) }, testCall());
    await expect(attempt).rejects.toMatchObject({ status: 504, code: '510' });
    // A PATCH is never repeated; the deadline is not a reason to try again anyway.
    expect(server.received).toHaveLength(1);
  });

  it('takes a late answer inside the deadline', async ({ expect, onTestFinished }) => {
    // As late as the deadline of the next case, inside one that load cannot use up.
    const server = await serverOf(
      (_req, res) => setTimeout(() => res.end('{"ok":true}'), 1000),
      onTestFinished,
    );
    const response = await client(5000).send({ method: 'GET', url: slow(server) }, testCall());
    expect(response.status).toBe(200);
  });

  it('gives up when the upstream answers just after the deadline', async ({
    expect,
    onTestFinished,
  }) => {
    // Both timers in this process: the deadline's, set first and due first, always fires first.
    const server = await serverOf(
      (_req, res) => setTimeout(() => res.end('{"ok":true}'), 1100),
      onTestFinished,
    );
    const attempt = client(1000).send({ method: 'GET', url: slow(server) }, testCall());
    await expect(attempt).rejects.toMatchObject({ status: 504, code: '510' });
  });

  it('counts the whole call, retries included, against one deadline', async ({
    expect,
    onTestFinished,
  }) => {
    const server = await serverOf(
      (_req, res) => setTimeout(() => gatewayError(res, 503, '500'), 300),
      onTestFinished,
    );
    const attempt = client(800).send({ method: 'GET', url: slow(server) }, testCall());
    await expect(attempt).rejects.toMatchObject({ status: 504, code: '510' });
    // 300 ms per attempt in an 800 ms deadline: the third attempt is cut short.
    expect(server.received.length).toBeLessThanOrEqual(3);
  });

  it('maps a reset after the headers to 503/500 and repeats only an idempotent call', async ({
    expect,
    onTestFinished,
  }) => {
    const server = await serverOf((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      res.write('{"partial":');
      setTimeout(() => res.socket?.destroy(), 20);
    }, onTestFinished);
    const patch = client(5000).send({ method: 'PATCH', url: slow(server) }, testCall());
    await expect(patch).rejects.toMatchObject({ status: 503, code: '500' });
    expect(server.received).toHaveLength(1);
    server.received.length = 0;
    const get = client(5000).send({ method: 'GET', url: slow(server) }, testCall());
    await expect(get).rejects.toMatchObject({ status: 503, code: '500' });
    expect(server.received).toHaveLength(4);
  });

  it("never goes past the function's remaining time, with a bigger timeout", async ({
    expect,
    onTestFinished,
  }) => {
    const server = await serverOf(() => {}, onTestFinished);
    const attempt = client(60_000).send(
      { method: 'GET', url: slow(server) },
      testCall({ remainingMs: () => 600 }),
    );
    await expect(attempt).rejects.toBeInstanceOf(UpstreamTimeoutError);
  });
});

describe('UpstreamClient body limits', () => {
  let server: ScriptedServer;
  let dispatcher: Agent;
  let written = 0;
  const client = () => new UpstreamClient({ dispatcher, timeoutMs: 20_000, random: () => 0 });
  const url = () => new URL('/big', server.url);

  /** Streams `total` bytes in 64 KB chunks (chunked encoding), counting what the socket took. */
  function stream(res: ServerResponse, status: number, type: string, total: number, head = '') {
    res.writeHead(status, { 'content-type': type });
    const chunk = Buffer.alloc(64 * 1024, 'a');
    written = 0;
    if (head) {
      res.write(head);
      written += head.length;
    }
    const pump = () => {
      while (written < total && !res.destroyed) {
        written += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      if (!res.destroyed) res.end();
    };
    res.on('error', () => {});
    pump();
  }

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

  it.each([7, 50])('refuses a %d MB success body with 502/520 and stops reading it', async (mb) => {
    server.script = (_req, res) => stream(res, 200, 'application/octet-stream', mb * 1024 * 1024);
    const attempt = client().send({ method: 'GET', url: url() }, testCall());
    await expect(attempt).rejects.toBeInstanceOf(UpstreamResponseTooLargeError);
    await expect(attempt).rejects.toMatchObject({ status: 502, code: '520' });
    expect(server.received).toHaveLength(1);
    // The server could not push the whole body: the client dropped the connection.
    if (mb === 50) expect(written).toBeLessThan(mb * 1024 * 1024);
  });

  it('refuses a declared Content-Length over the limit without reading it', async () => {
    server.script = (_req, res) => {
      res.writeHead(200, { 'content-length': String(MAX_UPSTREAM_BODY_BYTES + 1) });
      res.write('x');
    };
    await expect(client().send({ method: 'GET', url: url() }, testCall())).rejects.toMatchObject({
      status: 502,
      code: '520',
    });
  });

  it('passes a body just under the limit', async () => {
    const size = MAX_UPSTREAM_BODY_BYTES - 1024;
    server.script = (_req, res) => stream(res, 200, 'application/octet-stream', size);
    const response = await client().send({ method: 'GET', url: url() }, testCall());
    expect(response.body.length).toBeGreaterThanOrEqual(size);
    expect(response.body.length).toBeLessThanOrEqual(MAX_UPSTREAM_BODY_BYTES);
  });

  it('reads only the first 64 KB of a 50 MB error body that is decoded', async () => {
    const head =
      '<?xml version="1.0"?><Message><error><errorCode>900</errorCode><message>Broken</message></error>';
    server.script = (_req, res) => stream(res, 500, 'text/xml', 50 * 1024 * 1024, head);
    const response = await client().send({ method: 'POST', url: url(), body: '{}' }, testCall());
    expect(response.status).toBe(500);
    expect(response.body.length).toBe(MAX_ERROR_BODY_BYTES);
    expect(written).toBeLessThan(50 * 1024 * 1024);
    const decoded = decodeUpstreamError(response);
    // The parser reads what arrived: the envelope at the start of the body.
    expect(decoded).toMatchObject({ status: 500, code: '900', message: 'Broken' });
  });

  it('reads an error body whole when the caller passes errors through (an action)', async () => {
    server.script = (_req, res) => stream(res, 500, 'text/plain', 1024 * 1024);
    const response = await client().send(
      {
        method: 'POST',
        url: url(),
        body: '{}',
        passesErrors: true,
      },
      testCall(),
    );
    expect(response.body.length).toBeGreaterThanOrEqual(1024 * 1024);
  });
});
