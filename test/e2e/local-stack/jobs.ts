/**
 * The scan job routes end to end: real `serverless offline` (API Gateway + Lambda emulation,
 * esbuild bundles) in front of the embedded emulator, called over HTTP.
 */
import { createHash } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { describe, expect, it } from 'vitest';
import { demoSecret } from '../../helpers/platform.ts';
import { sharedStackForSuite } from '../offline.ts';

const TOKEN = { authorization: 'Bearer demo-caller-token-for-local-use-only' };

describe('scan job routes through serverless offline', () => {
  // The demo secret, its actions on this emulator's port (answers of any size run one).
  const { emulator, offline } = sharedStackForSuite();
  const url = (path: string) => `${offline.baseUrl}${path}`;

  async function expectEnvelope(response: Response, status: number, code: string) {
    expect(response.status, offline.output()).toBe(status);
    const text = await response.text();
    const body = JSON.parse(text) as { error: { errorCode: string } };
    expect(body.error.errorCode).toBe(code);
    expect(text).not.toMatch(/\bat .+:\d+:\d+/); // no stack frame
    return body;
  }

  it('lists the demo jobs, signed upstream', async () => {
    const response = await fetch(url('/jobs?page=1&limit=5'), { headers: TOKEN });
    expect(response.status, offline.output()).toBe(200);
    const body = (await response.json()) as { resources: { record_data: unknown[] } };
    expect(body.resources.record_data).toHaveLength(5);
    expect(emulator.requests.at(-1)?.url).toBe('/api/v1/jobs?page=1&limit=5');
  });

  it('refuses a caller without a token', async () => {
    await expectEnvelope(await fetch(url('/jobs')), 401, '200');
  });

  it.each([
    ['GET', '/jobs?page=0', undefined, undefined],
    ['POST', '/jobs/search', '{"searchType":', 'application/json'],
    ['POST', '/jobs/search', 'searchType=url', 'application/x-www-form-urlencoded'],
    ['PATCH', '/jobs/a.b/cancel', undefined, undefined],
    ['POST', '/jobs/cancel-reserved', '{"searchType":"url"}', 'application/json'],
  ])('answers %s %s with bad input as 400/100', async (method, path, body, contentType) => {
    const headers: Record<string, string> = { ...TOKEN };
    if (contentType) headers['content-type'] = contentType;
    await expectEnvelope(await fetch(url(path), { method, headers, body }), 400, '100');
  });

  it('cancels a reserved job, then passes the refusal of a second cancel through', async () => {
    const first = await fetch(url('/jobs/2810019/cancel'), { method: 'PATCH', headers: TOKEN });
    expect(first.status, offline.output()).toBe(200);
    await expectEnvelope(
      await fetch(url('/jobs/2810019/cancel'), { method: 'PATCH', headers: TOKEN }),
      400,
      '901',
    );
  });

  it('returns the report byte for byte', async () => {
    const response = await fetch(url('/jobs/2810005/report'), { headers: TOKEN });
    expect(response.status, offline.output()).toBe(200);
    const bytes = Buffer.from(await response.arrayBuffer());
    expect(bytes.toString('utf8')).toContain('주간 점검');
    const report = JSON.parse(bytes.toString('utf8')) as Record<string, unknown>;
    expect(report).toHaveProperty('Classify_byRisk_Level');
  });

  it('answers a known path with a wrong method as 405 with Allow', async () => {
    const response = await fetch(url('/jobs'), { method: 'DELETE', headers: TOKEN });
    expect(response.headers.get('allow')).toBe('GET');
    await expectEnvelope(response, 405, '100');
  });

  it('answers errors in XML when asked', async () => {
    const response = await fetch(url('/jobs'), { headers: { accept: 'text/xml' } });
    expect(response.status).toBe(401);
    expect(response.headers.get('content-type')).toMatch(/^text\/xml/);
    expect(await response.text()).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><result><error><errorCode>200</errorCode><message>Authentication Failed</message>' +
        '<details>No Authorization header: send &quot;Authorization: Bearer &lt;token&gt;&quot;.</details></error></result>',
    );
  });

  it.each([
    ['over the 6 MB Lambda limit (refused by the function)', 7 * 1024 * 1024],
    ['over 10 MB (refused by the local API Gateway)', 11 * 1024 * 1024],
  ])('refuses a body %s with 413/430, sending nothing', async (_case, size) => {
    const before = emulator.requests.length;
    const body = JSON.stringify({ searchType: 'url', searchKeyword: 'x'.repeat(size) });
    const response = await fetch(url('/jobs/search'), {
      method: 'POST',
      headers: { ...TOKEN, 'content-type': 'application/json' },
      body,
    });
    const { error } = (await expectEnvelope(response, 413, '430')) as {
      error: { details?: string };
    };
    // Both state the documented limit, whichever part refused the body.
    expect(error.details).toBe('The request body is over the limit of 6 MB (6291456 bytes).');
    expect(emulator.requests.length).toBe(before);
  });

  /** A request exactly as written: fetch would normalise a bad escape or a missing type. */
  function raw(
    method: string,
    path: string,
    headers: Record<string, string>,
    body?: string,
  ): Promise<{ status: number; contentType: string; text: string }> {
    const { port } = new URL(offline.baseUrl);
    return new Promise((resolve, reject) => {
      const req = httpRequest(
        { host: '127.0.0.1', port, method, path, headers: { ...TOKEN, ...headers } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              contentType: String(res.headers['content-type'] ?? ''),
              text: Buffer.concat(chunks).toString('utf8'),
            }),
          );
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }

  describe('answers locally as it does deployed: the envelope for every bad input', () => {
    it.each(['0', 'false', 'null', '"text"', '[]'])('JSON body %s: 400/100', async (body) => {
      const before = emulator.requests.length;
      const answer = await raw(
        'POST',
        '/jobs/search',
        { 'content-type': 'application/json' },
        body,
      );
      expect(answer.status, offline.output()).toBe(400);
      expect(JSON.parse(answer.text)).toMatchObject({
        error: { errorCode: '100', details: [{ path: 'body' }] },
      });
      expect(emulator.requests.length).toBe(before);
    });

    it('a body without Content-Type: 400/100 naming the header', async () => {
      const answer = await raw('POST', '/jobs/search', {}, '{"searchType":"url"}');
      expect(answer.status, offline.output()).toBe(400);
      expect(JSON.parse(answer.text)).toMatchObject({
        error: { errorCode: '100', details: [{ path: 'headers.content-type' }] },
      });
    });

    it.each(['/jobs/%E0%A4%A/report', '/jobs/%zz/report'])(
      'a malformed escape in the path (%s): 400/100',
      async (path) => {
        const answer = await raw('GET', path, {});
        expect(answer.status, offline.output()).toBe(400);
        expect(JSON.parse(answer.text)).toMatchObject({ error: { errorCode: '100' } });
      },
    );

    it('a malformed escape, asking for XML: the XML envelope', async () => {
      const answer = await raw('GET', '/jobs/%zz/report', { accept: 'text/xml' });
      expect(answer.status).toBe(400);
      expect(answer.contentType).toMatch(/^text\/xml/);
      expect(answer.text).toContain('<errorCode>100</errorCode>');
      expect(answer.text).toContain(
        '<details><item><path>path</path><issue>malformed percent-encoding</issue></item></details>',
      );
    });

    it('an unparsable Content-Type: 400/100', async () => {
      const answer = await raw('POST', '/jobs/search', { 'content-type': ';;;' }, '{}');
      expect(answer.status, offline.output()).toBe(400);
      expect(JSON.parse(answer.text)).toMatchObject({
        error: { errorCode: '100', details: [{ path: 'headers.content-type' }] },
      });
    });
  });

  it('holds a caller to its usage plan in the local dynalite: RateLimit fields, and GET /usage counts', async () => {
    const metered = { authorization: 'Bearer demo-metered-token-reads-jobs-under-a-plan' };
    const before = (await (await fetch(url('/usage'), { headers: metered })).json()) as {
      caller: { day: { requests: number } };
    };
    const response = await fetch(url('/jobs?page=1&limit=5'), { headers: metered });
    expect(response.status, offline.output()).toBe(200);
    expect(response.headers.get('ratelimit-policy')).toContain('q=1000;w=86400');
    expect(response.headers.get('ratelimit')).toMatch(/;r=\d+;t=\d+/);
    const after = await fetch(url('/usage'), { headers: metered });
    expect(after.status, offline.output()).toBe(200);
    expect(await after.json()).toMatchObject({
      caller: { id: 'demo-metered', day: { requests: before.caller.day.requests + 1 } },
    });
    // The demo caller has no plan: no fields, and no call to the usage table.
    const free = await fetch(url('/jobs?page=1&limit=5'), { headers: TOKEN });
    expect(free.headers.get('ratelimit-policy')).toBeNull();
  });

  // One pass of answers of any size through the local run (the handlers' own tests cross every
  // size with every kind): a report, WAV speech, a map image and an action's JSON, from the
  // emulator at the size asked, each whole, its digest checked; past Lambda's 6 MB by the 303 to
  // the hand-off bucket's stand-in, which checks the presigned URL as S3 does.
  it.each([
    ['a report', 5.9, 'report', '/jobs/2810001/report', undefined],
    ['WAV speech', 6.1, 'speech', '/tts', '{"speaker":"mijin","text":"안녕","format":"wav"}'],
    [
      'a map image',
      20,
      'map',
      '/maps/static?w=100&h=80&center=127.1,37.3&level=9&format=png',
      undefined,
    ],
    ["an action's JSON", 90, 'action', '/actions/hello?result=true', '{"name":"large"}'],
  ] as const)(
    'answers %s of %s MB whole, its digest checked',
    { timeout: 120_000 },
    async (_what, mb, kind, path, body) => {
      const bytes = 2 * Math.round((mb * 1024 * 1024) / 2);
      await fetch(`${emulator.url}/__emulator/answer-sizes`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ [kind]: bytes }),
      });
      const headers = { ...TOKEN, ...(body ? { 'content-type': 'application/json' } : {}) };
      const method = body ? 'POST' : 'GET';

      const response = await fetch(url(path), { method, headers, body, redirect: 'manual' });

      const served = emulator.answerSizes.served.at(-1);
      expect(served?.bytes, offline.output()).toBe(bytes);
      let received: Buffer;
      if (response.status === 303) {
        const location = response.headers.get('location') ?? '';
        expect(location.startsWith(`${offline.handOff.endpoint}/`)).toBe(true);
        expect(response.headers.get('answer-digest')).toBe(`sha-256=:${served?.sha256}:`);
        expect(response.headers.get('answer-length')).toBe(String(bytes));
        await response.arrayBuffer();
        // Without its query, the stored answer is refused; with it, it is the answer.
        expect((await fetch(location.split('?')[0] ?? '')).status).toBe(403);
        const stored = await fetch(location);
        // As S3 serves it: an attachment, in no cache on the way.
        expect(stored.headers.get('content-disposition')).toMatch(/^attachment(;|$)/);
        expect(stored.headers.get('cache-control')).toBe('private, no-store');
        received = Buffer.from(await stored.arrayBuffer());
      } else {
        expect(response.status, offline.output()).toBe(200);
        received = Buffer.from(await response.arrayBuffer());
      }
      expect(response.status).toBe(mb === 5.9 ? 200 : 303);
      expect(received.length).toBe(bytes);
      expect(createHash('sha256').update(received).digest('base64')).toBe(served?.sha256);
    },
  );

  it('logs no token, key or stack trace', async () => {
    const secret = await demoSecret();
    const output = offline.output();
    for (const value of [
      'demo-caller-token-for-local-use-only',
      secret.iam!.secretKey,
      secret.apiKey!,
    ]) {
      expect(output).not.toContain(value);
    }
  });
});
