import { Agent, get } from 'node:http';
import type { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { startEmulator } from '../../../emulator/index.js';
import { signedFetch } from './helpers.js';

/** One GET over a keep-alive agent; resolves with its socket, left open for reuse. */
function getKeepingAlive(url: string, agent: Agent): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const req = get(url, { agent }, (res) => {
      res.resume();
      res.on('end', () => resolve(req.socket as Socket));
    });
    req.on('error', reject);
  });
}

describe('emulator lifecycle', () => {
  it('listens on a free port by default and reports its URL', async () => {
    const emulator = await startEmulator({ quiet: true });
    try {
      expect(emulator.port).toBeGreaterThan(0);
      expect(emulator.url).toBe(`http://127.0.0.1:${emulator.port}`);
    } finally {
      await emulator.close();
    }
  });

  it('keeps connections alive and destroys idle ones on close', async () => {
    const emulator = await startEmulator({ quiet: true });
    const agent = new Agent({ keepAlive: true });
    try {
      const socket = await getKeepingAlive(`${emulator.url}/__emulator/health`, agent);
      const closed = new Promise((resolve) => socket.once('close', resolve));

      expect(socket.destroyed).toBe(false);
      await emulator.close();
      await closed;

      expect(socket.destroyed).toBe(true);
    } finally {
      agent.destroy();
    }
  });

  it('drops a request held by injected latency when it closes', async () => {
    const emulator = await startEmulator({ quiet: true });
    emulator.faults.add({ kind: 'latency', ms: 60_000 });

    const pending = signedFetch(emulator, 'GET', '/api/v1/jobs');
    while (emulator.requests.length === 0) await new Promise((resolve) => setImmediate(resolve));
    await emulator.close();

    await expect(pending).rejects.toThrow();
  });

  it('drops a request held by injected latency on reset, so it never acts on the fresh state', async () => {
    const emulator = await startEmulator({ quiet: true });
    try {
      emulator.faults.add({ kind: 'latency', ms: 200 });
      const pending = signedFetch(emulator, 'PATCH', '/api/v1/jobs/2810017/cancel');
      while (emulator.requests.length === 0) await new Promise((resolve) => setImmediate(resolve));
      emulator.reset();

      await expect(pending).rejects.toThrow();
      const after = await signedFetch(emulator, 'PATCH', '/api/v1/jobs/2810017/cancel');
      expect(after.status).toBe(200);
    } finally {
      await emulator.close();
    }
  });

  it('can be closed twice', async () => {
    const emulator = await startEmulator({ quiet: true });

    await emulator.close();
    await expect(emulator.close()).resolves.toBeUndefined();
  });

  it('fails to start on a port in use', async () => {
    const first = await startEmulator({ quiet: true });
    try {
      await expect(startEmulator({ quiet: true, port: first.port })).rejects.toThrow(/EADDRINUSE/);
    } finally {
      await first.close();
    }
  });

  it.each([{ port: -1 }, { port: 70_000 }, { vendor: 'x-bad' }, { phaseDurationMs: 0 }])(
    'refuses bad options %j',
    async (options) => {
      await expect(startEmulator({ quiet: true, ...options })).rejects.toThrow();
    },
  );
});
