/** `npm run smoke` (scripts/smoke.ts): GET /health and one authenticated route of a stage. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../../scripts/local/args.ts';
import { findFreePort } from '../../../scripts/local/ports.ts';
import { smoke, smokeArgs } from '../../../scripts/smoke.ts';

const TOKEN = 'a-caller-token-of-at-least-32-characters';

describe("npm run smoke's command line", () => {
  it('takes the base URL and the token, a token that starts with "-" after --', () => {
    expect(smokeArgs(['https://api.example.com', TOKEN])).toEqual({
      base: 'https://api.example.com',
      token: TOKEN,
    });
    expect(smokeArgs(['https://api.example.com', '--', `-${TOKEN}`]).token).toBe(`-${TOKEN}`);
  });

  it('refuses a missing token, a URL that is not http(s), and anything more', () => {
    expect(() => smokeArgs(['https://api.example.com'])).toThrow(UsageError);
    expect(() => smokeArgs(['api.example.com', TOKEN])).toThrow(
      new UsageError('not an http(s) URL: api.example.com'),
    );
    expect(() => smokeArgs(['https://api.example.com', TOKEN, 'extra'])).toThrow(
      new UsageError('unknown argument: extra'),
    );
    expect(() => smokeArgs(['https://api.example.com', TOKEN, '--verbose'])).toThrow(UsageError);
  });
});

describe('the smoke test of a stage', () => {
  let server: Server;
  let base: string;
  beforeAll(async () => {
    server = createServer((request, response) => {
      if (request.url === '/health') return response.writeHead(200).end('{"status":"ok"}');
      if (request.url === '/jobs?limit=1' && request.headers.authorization === `Bearer ${TOKEN}`) {
        return response.writeHead(200).end('{"resources":{}}');
      }
      response
        .writeHead(401, { 'content-type': 'application/json' })
        .end('{"error":{"errorCode":"200","message":"Authentication Failed"}}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(() => {
    server.close();
  });

  it('passes a stage that answers both', async () => {
    expect(await smoke(base, TOKEN)).toEqual([
      { ok: true, text: 'GET /health: 200' },
      { ok: true, text: 'GET /jobs?limit=1: 200' },
    ]);
  });

  it('names the refusal of the token, never the token', async () => {
    const lines = await smoke(base, 'wrong-token');
    expect(lines[1]).toEqual({
      ok: false,
      text: 'GET /jobs?limit=1: 401 {"errorCode":"200","message":"Authentication Failed"}',
    });
    expect(JSON.stringify(lines)).not.toContain('wrong-token');
  });

  it('says in one line that nothing answers', async () => {
    const lines = await smoke(`http://127.0.0.1:${await findFreePort()}`, TOKEN);
    expect(lines).toEqual([
      {
        ok: false,
        text: 'GET /health: no answer (connection refused: is the URL right, is the stage up?)',
      },
    ]);
  });
});
