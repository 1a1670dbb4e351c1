/** `npm run webhook` (scripts/send-webhook.ts): where it posts, and what it says when nobody answers. */
import { execFile } from 'node:child_process';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { findFreePort } from '../../../scripts/local/ports.ts';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const run = promisify(execFile);

function sendWebhook(port: number) {
  return run(process.execPath, ['scripts/send-webhook.ts', 'demo', '{"name":"Ada"}'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, PORT: String(port) },
  });
}

describe('npm run webhook', () => {
  it('posts a signed delivery to the receiver on PORT', { timeout: 30_000 }, async () => {
    const seen: { url?: string; headers?: IncomingHttpHeaders } = {};
    const server = createServer((request, response) => {
      seen.url = request.url;
      seen.headers = request.headers;
      request.resume();
      request.on('end', () => response.writeHead(202).end('{"accepted":true}'));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { stdout } = await sendWebhook((server.address() as AddressInfo).port);
      expect(stdout).toMatch(/^202 \{"accepted":true\}/);
      expect(seen.url).toBe('/webhooks/demo');
      expect(seen.headers?.['webhook-signature']).toMatch(/^v1,/);
    } finally {
      server.close();
    }
  });

  it('says in one line what to start when nothing answers, with no stack trace', {
    timeout: 30_000,
  }, async () => {
    const port = await findFreePort();
    const failure = (await sendWebhook(port).catch((error: unknown) => error)) as {
      code: number;
      stderr: string;
    };
    expect(failure.code).toBe(1);
    const lines = failure.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toBe(
      `Nothing answers on http://127.0.0.1:${port}: start the functions first (npm start), or set PORT to the port npm start listens on.`,
    );
  });
});
