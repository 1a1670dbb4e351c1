/**
 * Global setup of the AWS tier: moto's server (`moto_server`, a maintained emulator of the AWS
 * APIs: Secrets Manager, SQS, DynamoDB, EventBridge, ...) on a free loopback port, stopped at
 * the end. Tests read its URL with `inject('motoEndpoint')`.
 */
import { spawn } from 'node:child_process';
import type { TestProject } from 'vitest/node';
import { findFreePort } from '../../scripts/local/ports.js';

declare module 'vitest' {
  export interface ProvidedContext {
    motoEndpoint: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const port = await findFreePort();
  const endpoint = `http://127.0.0.1:${port}`;
  const child = spawn('moto_server', ['-H', '127.0.0.1', '-p', String(port)], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const failed = new Promise<never>((_, reject) => {
    child.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new Error(
          error.code === 'ENOENT'
            ? "moto_server is not installed: pip install 'moto[server]' (Python 3)"
            : `moto_server did not start: ${error.message}`,
        ),
      ),
    );
    child.once('exit', (code) => reject(new Error(`moto_server exited (${code}): ${stderr}`)));
  });
  const ready = (async () => {
    for (let i = 0; i < 150; i++) {
      try {
        const response = await fetch(`${endpoint}/moto-api/`);
        await response.body?.cancel();
        if (response.ok) return;
      } catch {
        // not listening yet
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`moto_server did not answer on ${endpoint}: ${stderr}`);
  })();
  await Promise.race([ready, failed]);
  failed.catch(() => {});
  project.provide('motoEndpoint', endpoint);
  return async () => {
    child.removeAllListeners('exit');
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000))]);
    child.kill('SIGKILL');
  };
}
