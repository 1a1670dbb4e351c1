import { execFile, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it, vi } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

describe('emulator CLI', () => {
  it('prints its URL, serves, and exits cleanly on SIGTERM', async () => {
    const child = spawn(process.execPath, ['emulator/main.ts'], {
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

  it('names its Node first, and stops on a Ctrl-C in a terminal (npm run emulator, its group signalled) by SIGINT', async () => {
    const child = spawn('npm', ['run', 'emulator'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, EMULATOR_PORT: '0' },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const ended = new Promise<[number | null, string | null]>((resolve) =>
      child.once('exit', (code, signal) => resolve([code, signal])),
    );
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    try {
      await vi.waitFor(() => expect(output).toMatch(/listening on http:\/\/\S+/), {
        timeout: 20_000,
      });
      expect(output).toMatch(/\n\nNode v\S+ runs the emulator\.\nPlatform emulator listening on /);
      // The terminal signals npm and the emulator alike; npm passes one more on.
      process.kill(-child.pid!, 'SIGINT');
      expect(await ended).toEqual([null, 'SIGINT']);
      expect(() => process.kill(-child.pid!, 0)).toThrow();
    } finally {
      if (child.exitCode === null && child.signalCode === null)
        process.kill(-child.pid!, 'SIGKILL');
    }
  }, 30_000);

  it('says in one line that its port is taken, and exits 1', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      const failure = (await promisify(execFile)(process.execPath, ['emulator/main.ts'], {
        cwd: ROOT,
        env: { PATH: process.env.PATH, EMULATOR_PORT: String(port) },
      }).catch((error: unknown) => error)) as { code: number; stderr: string };
      expect(failure.code).toBe(1);
      expect(failure.stderr.trim()).toBe(
        `Port ${port} is already in use on 127.0.0.1; choose another EMULATOR_PORT.`,
      );
    } finally {
      taken.close();
    }
  }, 30_000);
});
