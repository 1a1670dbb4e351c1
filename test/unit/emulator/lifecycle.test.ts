import { spawn } from 'node:child_process';
import { Agent, get } from 'node:http';
import type { Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  demoCredentials,
  INACTIVE_ACCESS_KEY,
  INACTIVE_API_KEY,
  INACTIVE_SECRET_KEY,
  startEmulator,
} from '../../../emulator/index.js';
import { DEMO_ACCESS_KEY, DEMO_API_KEY, DEMO_SECRET_KEY, signedFetch } from './helpers.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

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

describe('demo credentials', () => {
  it('derive from the demo secret and add inactive keys', () => {
    const credentials = demoCredentials();

    expect(credentials.accessKeys).toEqual([
      { accessKey: DEMO_ACCESS_KEY, secretKey: DEMO_SECRET_KEY, active: true },
      { accessKey: INACTIVE_ACCESS_KEY, secretKey: INACTIVE_SECRET_KEY, active: false },
    ]);
    expect(credentials.apiKeys).toEqual([
      { key: DEMO_API_KEY, active: true },
      { key: INACTIVE_API_KEY, active: false },
    ]);
    expect(credentials.requireApiKey).toBe(true);
    expect(credentials.apps).toEqual([
      { clientId: 'democlient', clientSecret: 'democlientsecret000000000000000000000001' },
    ]);
  });
});

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

describe('emulator CLI', () => {
  it('prints its URL, serves, and exits cleanly on SIGTERM', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'emulator/main.ts'], {
      cwd: ROOT,
      env: { ...process.env, EMULATOR_PORT: '0', GATEWAY_VENDOR: 'ncp' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) =>
      child.once('exit', (code) => resolve(code)),
    );
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let output = '';
        child.stdout.on('data', (chunk: Buffer) => {
          output += chunk.toString('utf8');
          const found = /http:\/\/\S+/.exec(output);
          if (found) resolve(found[0]);
        });
        child.once('exit', () => reject(new Error(`exited early: ${output}`)));
      });

      const response = await fetch(`${url}/api/v1/jobs`);
      expect(response.status).toBe(401);
      expect(response.headers.get('x-ncp-apigw-response-origin')).toBe('APIGW');

      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 30_000);
});
