/**
 * One exchange through undici's dispatch API, against a loopback server the test scripts, and
 * the deadline that ends it (on fake timers where nothing but the clock is involved).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  UpstreamResponseTooLargeError,
  UpstreamTimeoutError,
} from '../../../../lib/core/errors.ts';
import { createDispatcher, Deadline, dispatchOnce } from '../../../../lib/upstream/dispatch.ts';
import type { Dispatcher } from '../../../../lib/upstream/undici.ts';
import { type ScriptedServer, startScriptedServer } from '../../../helpers/scripted-server.ts';

describe('dispatchOnce', () => {
  let server: ScriptedServer;
  let dispatcher: Dispatcher;
  const get = (path = '/answer'): Dispatcher.DispatchOptions => ({
    origin: server.url.origin,
    path,
    method: 'GET',
  });

  beforeAll(async () => {
    server = await startScriptedServer();
    dispatcher = createDispatcher();
  });
  afterAll(async () => {
    await dispatcher.close();
    await server.close();
  });

  it('brings back the status, the headers (names in lower case, repeated ones joined) and the body', async () => {
    server.script = (_req, res) => {
      res.writeHead(201, { 'Content-Type': 'text/plain', 'X-Multi': ['a', 'b'] });
      res.end('한글 body');
    };
    const answer = await dispatchOnce(dispatcher, get(), { maxBodyBytes: 1024 });
    expect(answer.status).toBe(201);
    expect(answer.headers['content-type']).toBe('text/plain');
    expect(answer.headers['x-multi']).toBe('a, b');
    expect(answer.body.toString('utf8')).toBe('한글 body');
  });

  it('sends the request as given', async () => {
    server.script = (_req, res) => res.end();
    await dispatchOnce(
      dispatcher,
      {
        origin: server.url.origin,
        path: '/p%20a?q=1&q=2',
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-signed': 'yes' },
        body: '{"a":1}',
      },
      { maxBodyBytes: 1024 },
    );
    const sent = server.received.at(-1)!;
    expect(sent).toMatchObject({ method: 'POST', url: '/p%20a?q=1&q=2' });
    expect(sent.headers['x-signed']).toBe('yes');
    expect(sent.body.toString()).toBe('{"a":1}');
  });

  it('tells when the answer has arrived, once', async () => {
    server.script = (_req, res) => res.end('x');
    let told = 0;
    await dispatchOnce(dispatcher, get(), { maxBodyBytes: 10, onAnswer: () => told++ });
    expect(told).toBe(1);
  });

  it('tells as the request is written, and writes nothing when told no', async () => {
    server.script = (_req, res) => res.end('x');
    const before = server.received.length;
    let written = 0;
    await dispatchOnce(dispatcher, get('/told'), { maxBodyBytes: 10, onSend: () => written++ });
    expect(written).toBe(1);
    expect(server.received.length).toBe(before + 1);
    const refused = new Error('answered already');
    await expect(
      dispatchOnce(dispatcher, get('/refused'), {
        maxBodyBytes: 10,
        onSend: () => {
          throw refused;
        },
      }),
    ).rejects.toBe(refused);
    // A request the server never received: give it the time to arrive if it had been written.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(server.received.map((r) => r.url)).not.toContain('/refused');
  });
  it('refuses a declared Content-Length over the limit, without waiting for the body', async () => {
    server.script = (_req, res) => {
      res.writeHead(200, { 'content-length': '2048' });
      // The rest never comes: only the declared length can end the call.
      res.write('x'.repeat(10));
    };
    await expect(dispatchOnce(dispatcher, get(), { maxBodyBytes: 1024 })).rejects.toBeInstanceOf(
      UpstreamResponseTooLargeError,
    );
  });

  it('refuses a body that grows past the limit as it arrives (no length declared)', async () => {
    server.script = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.write('x'.repeat(600));
      res.end('y'.repeat(600));
    };
    await expect(dispatchOnce(dispatcher, get(), { maxBodyBytes: 1024 })).rejects.toMatchObject({
      status: 502,
      code: '520',
    });
    // Exactly the limit passes.
    server.script = (_req, res) => res.end('z'.repeat(1024));
    expect((await dispatchOnce(dispatcher, get(), { maxBodyBytes: 1024 })).body).toHaveLength(1024);
  });

  it('cuts an error answer at its own limit instead of refusing it, where asked to', async () => {
    server.script = (_req, res) => {
      res.writeHead(503, { 'content-type': 'text/plain', 'content-length': String(256 * 1024) });
      res.end('e'.repeat(256 * 1024));
    };
    const answer = await dispatchOnce(dispatcher, get(), {
      maxBodyBytes: 1024,
      maxErrorBodyBytes: 100,
    });
    expect(answer.status).toBe(503);
    expect(answer.body.toString()).toBe('e'.repeat(100));
    // A success answer is still held to the whole limit.
    server.script = (_req, res) => res.end('s'.repeat(2000));
    await expect(
      dispatchOnce(dispatcher, get(), { maxBodyBytes: 1024, maxErrorBodyBytes: 100 }),
    ).rejects.toBeInstanceOf(UpstreamResponseTooLargeError);
  });

  it('ends the exchange when its deadline passes, and drops the request', async () => {
    let closed!: () => void;
    const dropped = new Promise<void>((resolve) => {
      closed = resolve;
    });
    server.script = (_req, res) => {
      // Never answers: only the deadline ends the call.
      res.once('close', closed);
    };
    const deadline = new Deadline(50);
    await expect(
      dispatchOnce(dispatcher, get('/never'), { maxBodyBytes: 1024, deadline }),
    ).rejects.toBeInstanceOf(UpstreamTimeoutError);
    await dropped;
    deadline.clear();
  });

  it('stops watching its deadline once answered', async () => {
    server.script = (_req, res) => res.end('ok');
    const deadline = new Deadline(60_000);
    let expired = false;
    await dispatchOnce(dispatcher, get(), { maxBodyBytes: 1024, deadline });
    deadline.watch(() => {
      expired = true;
    });
    deadline.clear();
    expect(expired).toBe(false);
  });

  it('refuses an unreachable origin with the connection error', async () => {
    const closedServer = await startScriptedServer();
    const origin = closedServer.url.origin;
    await closedServer.close();
    await expect(
      dispatchOnce(dispatcher, { origin, path: '/', method: 'GET' }, { maxBodyBytes: 10 }),
    ).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });
});

describe('createDispatcher', () => {
  it('keeps the connection for the next call of the container', async () => {
    let connections = 0;
    const server = createServer((_req, res) => res.end('ok'));
    server.on('connection', () => connections++);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const dispatcher = createDispatcher();
    try {
      for (let i = 0; i < 3; i++) {
        await dispatchOnce(dispatcher, { origin, path: '/', method: 'GET' }, { maxBodyBytes: 10 });
        // The next invocation comes later: undici has handed the connection back by then.
        await new Promise((resolve) => setImmediate(resolve));
      }
      expect(connections).toBe(1);
    } finally {
      await dispatcher.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('Deadline', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('expires once its time has passed, and ends what is watching it', () => {
    vi.useFakeTimers();
    const deadline = new Deadline(1000);
    let ended = 0;
    deadline.watch(() => ended++);
    vi.advanceTimersByTime(999);
    expect(deadline.expired).toBe(false);
    vi.advanceTimersByTime(1);
    expect(deadline.expired).toBe(true);
    expect(ended).toBe(1);
  });

  it('ends nothing once unwatched or cleared', () => {
    vi.useFakeTimers();
    const unwatched = new Deadline(10);
    const cleared = new Deadline(10);
    let ended = 0;
    unwatched.watch(() => ended++);
    unwatched.unwatch();
    cleared.watch(() => ended++);
    cleared.clear();
    vi.advanceTimersByTime(100);
    expect(ended).toBe(0);
    expect(cleared.expired).toBe(false);
    expect(unwatched.expired).toBe(true);
  });

  it('sleeps the time asked, or less when it passes first', async () => {
    vi.useFakeTimers();
    const far = new Deadline(10_000);
    let woke = false;
    void far.sleep(300).then(() => {
      woke = true;
    });
    await vi.advanceTimersByTimeAsync(299);
    expect(woke).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(woke).toBe(true);
    far.clear();

    const near = new Deadline(100);
    let cut = false;
    void near.sleep(60_000).then(() => {
      cut = true;
    });
    await vi.advanceTimersByTimeAsync(100);
    expect(cut).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });
});
