/** `npm run webhook` (scripts/send-webhook.ts): where it posts, and what it says when nobody answers. */
import { execFile } from 'node:child_process';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../scripts/local/args.ts';
import { findFreePort } from '../../../scripts/local/ports.ts';
import { webhookArgs } from '../../../scripts/send-webhook.ts';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const run = promisify(execFile);

function sendWebhook(port: number) {
  return run(process.execPath, ['scripts/send-webhook.ts', 'demo', '{"name":"Ada"}'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, PORT: String(port) },
  });
}

describe("npm run webhook's command line", () => {
  it('takes the webhook, its body and --id <id> or --id=<id>', () => {
    expect(webhookArgs(['github', '{"a":"b=c"}', '--id', 'msg_1'])).toEqual({
      name: 'github',
      body: '{"a":"b=c"}',
      id: 'msg_1',
    });
    expect(webhookArgs(['--id=msg_=2'])).toEqual({
      name: 'demo',
      body: '{"name":"webhook"}',
      id: 'msg_=2',
    });
    expect(webhookArgs([]).id).toMatch(/^msg_[0-9a-f-]{36}$/);
  });

  it('refuses an unknown flag or a third argument', () => {
    expect(() => webhookArgs(['demo', '--ids=1'])).toThrow(UsageError);
    expect(() => webhookArgs(['demo', '{}', 'extra'])).toThrow(
      new UsageError('unknown argument: extra'),
    );
  });

  it('says so with its usage line, and exits 2', { timeout: 30_000 }, async () => {
    const failure = (await run(process.execPath, ['scripts/send-webhook.ts', '--nope'], {
      cwd: ROOT,
    }).catch((error: unknown) => error)) as { code: number; stderr: string };
    expect(failure.code).toBe(2);
    expect(failure.stderr.trim().split('\n')).toEqual([
      expect.stringContaining("Unknown option '--nope'"),
      'usage: npm run webhook -- [name] [json body] [--id <webhook-id>]',
    ]);
  });
});

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
