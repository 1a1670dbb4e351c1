import net from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkedAnswerCount } from '../../helpers/openapi-answers.ts';
import { DEMO_TOKEN } from '../../helpers/platform.ts';
import { generateTypedClient } from '../../helpers/typed-client.ts';
import { sharedStackForSuite } from '../offline.ts';

describe('serverless offline smoke', () => {
  const { offline } = sharedStackForSuite();

  it('answers GET /health with 200, an answer checked against the OpenAPI document', async () => {
    const before = checkedAnswerCount();
    const response = await fetch(`${offline.baseUrl}/health`);
    expect(response.status, offline.output()).toBe(200);
    expect(checkedAnswerCount()).toBe(before + 1);
  });

  it('answers an unknown route with the 404 envelope', async () => {
    const response = await fetch(`${offline.baseUrl}/no-such-route`);
    expect(response.status, offline.output()).toBe(404);
    // serverless offline (hapi) appends "; charset=utf-8" to what the function sets
    expect(response.headers.get('content-type')).toMatch(/^application\/json\b/);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    const body = (await response.json()) as { error?: Record<string, unknown> };
    expect(Object.keys(body)).toEqual(['error']);
    const { errorCode, message, ...rest } = body.error ?? {};
    expect(errorCode).toBe('300');
    expect(typeof message).toBe('string');
    // The envelope holds errorCode, message and at most `details`, nothing else.
    expect(Object.keys(rest).filter((key) => key !== 'details')).toEqual([]);
  });

  it("answers what Node's HTTP parser refuses (a bad method token) with the envelope", async () => {
    const { port } = new URL(offline!.baseUrl);
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(Number(port), '127.0.0.1');
      const chunks: Buffer[] = [];
      socket.on('data', (chunk) => chunks.push(chunk));
      socket.on('error', reject);
      socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
      socket.write('get /health HTTP/1.1\r\nHost: x\r\n\r\n');
    });
    expect(raw.split('\r\n')[0]).toBe('HTTP/1.1 400 Bad Request');
    expect(raw.toLowerCase()).toContain('\r\nx-content-type-options: nosniff\r\n');
    expect(JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4))).toMatchObject({
      error: { errorCode: '100' },
    });
  });

  it('is called by a typed client generated from its OpenAPI document', async () => {
    const client = await generateTypedClient();
    try {
      const program = [
        "import createClient from 'openapi-fetch';",
        "import type { paths } from './api.js';",
        'export async function calls(baseUrl: string, token: string) {',
        "  const api = createClient<paths>({ baseUrl, headers: { authorization: 'Bearer ' + token } });",
        "  const list = await api.GET('/jobs', { params: { query: { page: 1, limit: 5 } } });",
        "  const search = await api.POST('/jobs/search', { body: { searchType: 'memo', searchKeyword: 'nightly' } });",
        "  const health = await api.GET('/health');",
        '  return { list: list.response.status, search: search.response.status, health: health.data?.status };',
        '}',
      ].join('\n');
      const compiled = await client.compile({ 'calls.ts': program });
      expect(compiled.output).toBe('');
      expect(compiled.ok).toBe(true);
      // The types mean something: a page given as text does not compile.
      const wrong = program.replace('page: 1', "page: 'one'");
      expect((await client.compile({ 'calls.ts': wrong })).ok).toBe(false);
      await client.write({ 'calls.ts': program });
      const { calls } = (await import(path.join(client.dir, 'calls.ts'))) as {
        calls: (baseUrl: string, token: string) => Promise<Record<string, unknown>>;
      };
      expect(await calls(offline.baseUrl, DEMO_TOKEN)).toEqual({
        list: 200,
        search: 200,
        health: 'ok',
      });
    } finally {
      await client.remove();
    }
  });
});
