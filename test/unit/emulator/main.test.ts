import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

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
});
