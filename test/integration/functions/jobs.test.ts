/**
 * The scan job functions invoked as Lambda invokes them, with the real middy stack, over
 * loopback against the embedded emulator.
 */

import { createHmac } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  type Emulator,
  INACTIVE_ACCESS_KEY,
  INACTIVE_SECRET_KEY,
} from '../../../emulator/index.ts';
import { usualCausesOf } from '../../../lib/scan-jobs/hints.ts';
import { emulatorForSuite } from '../../helpers/emulator.ts';
import { type HttpHandler, httpEvent, jsonBody, lambdaContext } from '../../helpers/lambda.ts';
import { captureLogLines } from '../../helpers/logs.ts';
import {
  DEMO_TOKEN,
  demoSecret,
  emulatorEnv,
  loadHandlers,
  SCAN_FUNCTIONS,
  secretFile,
} from '../../helpers/platform.ts';

type Handlers = Record<keyof typeof SCAN_FUNCTIONS, HttpHandler>;
type ErrorBody = { error: { errorCode: string; message: string; details?: unknown } };

const gatewayRequests = (emulator: Emulator) =>
  emulator.requests.filter((r) => r.url.startsWith('/api/'));

describe('scan job functions against the emulator', () => {
  const emulator = emulatorForSuite();
  let fn: Handlers;
  let logLines: string[];

  beforeAll(async () => {
    fn = await loadHandlers(emulatorEnv(emulator), SCAN_FUNCTIONS);
  });
  beforeEach(() => {
    logLines = captureLogLines();
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  describe('GET /jobs', () => {
    it('lists with the default page and limit, signed, body unchanged', async () => {
      const result = await fn.list(httpEvent('jobs-list.json', { query: '' }), lambdaContext());
      expect(result.statusCode).toBe(200);
      const sent = gatewayRequests(emulator)[0]!;
      expect(sent.method).toBe('GET');
      expect(sent.url).toBe('/api/v1/jobs?page=1&limit=10');
      expect(sent.headers['x-platform-apigw-signature-v2']).toBeTruthy();
      expect(sent.headers['x-platform-apigw-api-key']).toBe((await demoSecret()).apiKey);
      const body = jsonBody(result) as { resources: { record_data: unknown[]; total_cnt: number } };
      expect(body.resources.record_data).toHaveLength(10);
      expect(body.resources.total_cnt).toBe(25);
    });

    it('sends page and limit as given, page first', async () => {
      const result = await fn.list(
        httpEvent('jobs-list.json', { query: 'limit=5&page=3' }),
        lambdaContext(),
      );
      expect(result.statusCode).toBe(200);
      expect(gatewayRequests(emulator)[0]?.url).toBe('/api/v1/jobs?page=3&limit=5');
    });

    it.each(['page=0', 'page=-1', 'page=abc', 'limit=1.5', 'page=', 'page=1&page=2', 'pages=2'])(
      'refuses %s with 400/100 and sends nothing',
      async (query) => {
        const result = await fn.list(httpEvent('jobs-list.json', { query }), lambdaContext());
        expect(result.statusCode).toBe(400);
        expect((jsonBody(result) as ErrorBody).error.errorCode).toBe('100');
        expect(gatewayRequests(emulator)).toHaveLength(0);
      },
    );

    it('refuses a caller without a valid token and sends nothing', async () => {
      for (const [authorization, details] of [
        [undefined, 'No Authorization header: send "Authorization: Bearer <token>".'],
        ['Bearer nope', 'The bearer token is unknown or has expired.'],
      ] as const) {
        const result = await fn.list(
          httpEvent('jobs-list.json', { headers: { authorization } }),
          lambdaContext(),
        );
        expect(result.statusCode).toBe(401);
        expect(jsonBody(result)).toEqual({
          error: { errorCode: '200', message: 'Authentication Failed', details },
        });
      }
      expect(gatewayRequests(emulator)).toHaveLength(0);
    });
  });

  describe('POST /jobs/search', () => {
    it('forwards the search as JSON and returns the upstream body unchanged', async () => {
      const result = await fn.search(httpEvent('jobs-search.json'), lambdaContext());
      expect(result.statusCode).toBe(200);
      const sent = gatewayRequests(emulator)[0]!;
      expect(sent.url).toBe('/api/v1/jobs/search');
      expect(sent.headers['content-type']).toBe('application/json');
      const records = (jsonBody(result) as { resources: { record_data: { start_url: string }[] } })
        .resources.record_data;
      expect(records.length).toBeGreaterThan(0);
      expect(records.every((r) => r.start_url.includes('demo.example.com'))).toBe(true);
    });

    it('fills the platform defaults for omitted members', async () => {
      await fn.search(
        httpEvent('jobs-search.json', { body: '{"searchType":"memo","searchKeyword":"nightly"}' }),
        lambdaContext(),
      );
      expect(JSON.parse(gatewayRequests(emulator)[0]!.body ?? '{}')).toEqual({
        searchType: 'memo',
        searchKeyword: 'nightly',
        statusCode: null,
        limit: 10,
        page: 1,
      });
    });

    it.each([
      ['a wrong Content-Type', { headers: { 'content-type': 'text/plain' } }],
      [
        'a form body',
        { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'a=b' },
      ],
      ['malformed JSON', { body: '{"searchType":' }],
      ['a JSON array', { body: '[]' }],
      ['an unknown searchType', { body: '{"searchType":"title"}' }],
      ['a zero page', { body: '{"page":0}' }],
      ['a string limit', { body: '{"limit":"10"}' }],
      ['a numeric statusCode', { body: '{"statusCode":2}' }],
      ['an unknown member', { body: '{"pages":2}' }],
    ] as const)('refuses %s with 400/100 and sends nothing', async (_case, changes) => {
      const result = await fn.search(httpEvent('jobs-search.json', changes), lambdaContext());
      expect(result.statusCode).toBe(400);
      expect((jsonBody(result) as ErrorBody).error.errorCode).toBe('100');
      expect(gatewayRequests(emulator)).toHaveLength(0);
    });
  });

  describe('PATCH /jobs/{instanceId}/cancel and /stop', () => {
    it('cancels a reserved job', async () => {
      const result = await fn.cancel(httpEvent('jobs-cancel.json'), lambdaContext());
      expect(result.statusCode).toBe(200);
      expect(jsonBody(result)).toMatchObject({ returnCode: '0' });
      expect(gatewayRequests(emulator)[0]).toMatchObject({
        method: 'PATCH',
        url: '/api/v1/jobs/2810017/cancel',
      });
      expect(emulator.scanJobs.get('2810017')?.status).toBe('Cancel');
    });

    it("passes the upstream's refusal through, numeric code as a string", async () => {
      const event = httpEvent('jobs-cancel.json', {
        path: '/jobs/2810012/cancel',
        pathParameters: { instanceId: '2810012' },
      });
      const result = await fn.cancel(event, lambdaContext());
      expect(result.statusCode).toBe(400);
      expect(jsonBody(result)).toEqual({
        error: {
          errorCode: '901',
          message: 'API Call Fail',
          details: usualCausesOf('cancel'),
        },
      });
      expect(gatewayRequests(emulator)).toHaveLength(1);
    });

    it.each([
      ['cancelling an unknown job id', 'cancel', '/jobs/9999999/cancel', '9999999'],
      ['cancelling a non-numeric job id', 'cancel', '/jobs/abc/cancel', 'abc'],
      ['cancelling a finished job', 'cancel', '/jobs/2810001/cancel', '2810001'],
      ['stopping a reserved job', 'stop', '/jobs/2810017/stop', '2810017'],
      ['the report of an unknown job', 'report', '/jobs/9999999/report', '9999999'],
    ] as const)(
      'answers %s with the upstream 901 and its usual causes',
      async (_case, operation, path, instanceId) => {
        const event = httpEvent(`jobs-${operation}.json`, { path, pathParameters: { instanceId } });
        const result = await fn[operation](event, lambdaContext());
        expect(result.statusCode).toBe(400);
        const { error } = jsonBody(result) as ErrorBody;
        expect(error).toEqual({
          errorCode: '901',
          message: 'API Call Fail',
          details: usualCausesOf(operation),
        });
        expect(String(error.details)).toMatch(/Usual causes: no job has this instanceNo/);
      },
    );

    it("answers a page over the platform's largest with the upstream 901 and its usual causes", async () => {
      const result = await fn.list(
        httpEvent('jobs-list.json', { query: 'page=1&limit=100000' }),
        lambdaContext(),
      );
      expect(result.statusCode).toBe(400);
      expect((jsonBody(result) as ErrorBody).error.details).toMatch(/limit over 100/);
    });

    it('stops a running job, and refuses to stop a reserved one', async () => {
      const stopped = await fn.stop(httpEvent('jobs-stop.json'), lambdaContext());
      expect(stopped.statusCode).toBe(200);
      expect(emulator.scanJobs.get('2810012')?.status).toBe('Stop');
      const event = httpEvent('jobs-stop.json', { pathParameters: { instanceId: '2810017' } });
      const refused = await fn.stop(event, lambdaContext());
      expect(refused.statusCode).toBe(400);
      expect((jsonBody(refused) as ErrorBody).error.errorCode).toBe('901');
    });

    it.each(['a/b', '..', '', 'x'.repeat(65), '1 2', '%2F'])(
      'refuses the path parameter %j',
      async (instanceId) => {
        const result = await fn.cancel(
          httpEvent('jobs-cancel.json', { pathParameters: { instanceId } }),
          lambdaContext(),
        );
        expect(result.statusCode).toBe(400);
        expect((jsonBody(result) as ErrorBody).error.errorCode).toBe('100');
        expect(gatewayRequests(emulator)).toHaveLength(0);
      },
    );

    it('does not repeat a PATCH that failed after reaching the upstream', async () => {
      emulator.faults.add({ kind: 'status', status: 503, match: { method: 'PATCH' } });
      const result = await fn.cancel(httpEvent('jobs-cancel.json'), lambdaContext());
      expect(result.statusCode).toBe(503);
      expect((jsonBody(result) as ErrorBody).error.errorCode).toBe('500');
      expect(gatewayRequests(emulator)).toHaveLength(1);
    });

    it('maps a reset connection on a PATCH to 503/500 without repeating it', async () => {
      emulator.faults.add({ kind: 'reset', match: { method: 'PATCH' } });
      const result = await fn.cancel(httpEvent('jobs-cancel.json'), lambdaContext());
      expect(result.statusCode).toBe(503);
      expect(jsonBody(result)).toEqual({ error: { errorCode: '500', message: 'Endpoint Error' } });
      expect(gatewayRequests(emulator)).toHaveLength(1);
    });
  });

  describe('GET /jobs/{instanceId}/report', () => {
    it('returns the report byte for byte with its Content-Type', async () => {
      const result = await fn.report(httpEvent('jobs-report.json'), lambdaContext());
      expect(result.statusCode).toBe(200);
      // The same request, signed here with the test's own HMAC, straight to the emulator.
      const secret = await demoSecret();
      const uri = '/api/v1/jobs/2810001/report';
      const timestamp = String(Date.now());
      const signature = createHmac('sha256', secret.iam!.secretKey)
        .update(`GET ${uri}\n${timestamp}\n${secret.iam!.accessKey}`)
        .digest('base64');
      const direct = await fetch(new URL(uri, emulator.url), {
        headers: {
          'x-platform-apigw-timestamp': timestamp,
          'x-platform-iam-access-key': secret.iam!.accessKey,
          'x-platform-apigw-signature-v2': signature,
          'x-platform-apigw-api-key': secret.apiKey!,
        },
      });
      const expected = Buffer.from(await direct.arrayBuffer());
      const actual = Buffer.from(result.body ?? '', result.isBase64Encoded ? 'base64' : 'utf8');
      expect(actual.equals(expected)).toBe(true);
      expect(result.headers?.['content-type']).toBe(direct.headers.get('content-type'));
    });

    it('refuses the report of a job that has not completed', async () => {
      const event = httpEvent('jobs-report.json', { pathParameters: { instanceId: '2810017' } });
      const result = await fn.report(event, lambdaContext());
      expect(result.statusCode).toBe(400);
      expect((jsonBody(result) as ErrorBody).error.errorCode).toBe('901');
    });
  });

  describe('POST /jobs/cancel-reserved', () => {
    it('cancels every reserved job the search finds, across pages', async () => {
      const result = await fn.cancelReserved(
        httpEvent('jobs-cancel-reserved.json'),
        lambdaContext(),
      );
      expect(result.statusCode).toBe(200);
      const body = jsonBody(result) as {
        cancelled: string[];
        failed: unknown[];
        remaining: string[];
        complete: boolean;
      };
      expect(body.cancelled.sort()).toEqual(['2810017', '2810019', '2810021', '2810023']);
      expect(body.failed).toEqual([]);
      expect(body).toMatchObject({ remaining: [], complete: true });
      for (const id of body.cancelled) expect(emulator.scanJobs.get(id)?.status).toBe('Cancel');
      // Jobs of other hosts and other phases are left alone.
      expect(emulator.scanJobs.get('2810018')?.status).toBe('Reservation');
      expect(emulator.scanJobs.get('2810013')?.status).toBe('Progress');
    });

    it('walks every page of the search', async () => {
      const body = '{"searchType":"memo","searchKeyword":"e"}';
      const result = await fn.cancelReserved(
        httpEvent('jobs-cancel-reserved.json', { body }),
        lambdaContext(),
      );
      const searches = gatewayRequests(emulator).filter((r) => r.url.endsWith('/search'));
      const pages = searches.map((r) => (JSON.parse(r.body ?? '{}') as { page: number }).page);
      expect(pages[0]).toBe(1);
      expect(new Set(pages).size).toBe(pages.length);
      const cancelled = (jsonBody(result) as { cancelled: string[] }).cancelled;
      expect(cancelled.length).toBeGreaterThan(0);
    });

    it('reports the jobs it could not cancel, and cancels the rest', async () => {
      emulator.faults.add({
        kind: 'status',
        status: 429,
        errorCode: '400',
        match: { method: 'PATCH', pathPrefix: '/api/v1/jobs/2810019' },
      });
      const result = await fn.cancelReserved(
        httpEvent('jobs-cancel-reserved.json'),
        lambdaContext(),
      );
      expect(result.statusCode).toBe(200);
      const body = jsonBody(result) as {
        cancelled: string[];
        failed: { instanceNo: string; error: unknown }[];
      };
      expect(body.cancelled.sort()).toEqual(['2810017', '2810021', '2810023']);
      expect(body.failed).toEqual([
        { instanceNo: '2810019', error: { errorCode: '400', message: 'Quota Exceeded' } },
      ]);
    });

    it('finds nothing more to cancel the second time', async () => {
      await fn.cancelReserved(httpEvent('jobs-cancel-reserved.json'), lambdaContext());
      const again = await fn.cancelReserved(
        httpEvent('jobs-cancel-reserved.json'),
        lambdaContext(),
      );
      expect(jsonBody(again)).toEqual({ cancelled: [], failed: [], remaining: [], complete: true });
    });

    it('answers a dry run with what it would cancel, and cancels nothing', async () => {
      const body = '{"searchType":"url","searchKeyword":"demo.example.com","dryRun":true}';
      const result = await fn.cancelReserved(
        httpEvent('jobs-cancel-reserved.json', { body }),
        lambdaContext(),
      );
      expect(result.statusCode).toBe(200);
      const answer = jsonBody(result) as { dryRun: boolean; reserved: string[]; complete: boolean };
      expect(answer.dryRun).toBe(true);
      expect(answer.reserved.sort()).toEqual(['2810017', '2810019', '2810021', '2810023']);
      expect(answer).toMatchObject({ failed: [], complete: true });
      expect(gatewayRequests(emulator).filter((r) => r.method === 'PATCH')).toEqual([]);
      for (const id of answer.reserved) {
        expect(emulator.scanJobs.get(id)?.status).toBe('Reservation');
      }
    });

    it('refuses with 409/100 and the count found, and cancels nothing, when more match than expectAtMost', async () => {
      // The issue's case: "." matches every job's URL, all 9 reserved jobs of the demo set.
      const body = '{"searchType":"url","searchKeyword":".","expectAtMost":3}';
      const result = await fn.cancelReserved(
        httpEvent('jobs-cancel-reserved.json', { body }),
        lambdaContext(),
      );
      expect(result.statusCode).toBe(409);
      const error = (jsonBody(result) as ErrorBody).error;
      expect(error.errorCode).toBe('100');
      expect(error.details).toEqual([
        {
          path: 'expectAtMost',
          issue: expect.stringMatching(/^the search found 9 reserved jobs, more than 3;/),
        },
      ]);
      expect(gatewayRequests(emulator).filter((r) => r.method === 'PATCH')).toEqual([]);
    });

    it('cancels when the search finds no more than expectAtMost', async () => {
      const body = '{"searchType":"url","searchKeyword":"demo.example.com","expectAtMost":4}';
      const result = await fn.cancelReserved(
        httpEvent('jobs-cancel-reserved.json', { body }),
        lambdaContext(),
      );
      expect(result.statusCode).toBe(200);
      expect((jsonBody(result) as { cancelled: string[] }).cancelled).toHaveLength(4);
    });

    it('needs jobs:cancel-reserved: jobs:cancel alone is refused with 403/210, and sends nothing', async () => {
      const secret = await demoSecret();
      const file = await secretFile({
        ...secret,
        callers: [
          ...(secret.callers ?? []),
          {
            id: 'one-by-one',
            token: 'one-by-one-token-cancels-single-jobs-01',
            scopes: ['jobs:cancel'],
          },
          {
            id: 'bulk',
            token: 'bulk-token-cancels-reserved-jobs-in-bulk-1',
            scopes: ['jobs:cancel-reserved'],
          },
        ],
      });
      const scoped = await loadHandlers(emulatorEnv(emulator, { SECRETS_FILE: file }), {
        cancelReserved: SCAN_FUNCTIONS.cancelReserved,
      });
      const as = (token: string) =>
        scoped.cancelReserved(
          httpEvent('jobs-cancel-reserved.json', {
            headers: { authorization: `Bearer ${token}` },
            body: '{"searchType":"url","searchKeyword":"demo.example.com","dryRun":true}',
          }),
          lambdaContext(),
        );
      const refused = await as('one-by-one-token-cancels-single-jobs-01');
      expect(refused.statusCode).toBe(403);
      expect((jsonBody(refused) as ErrorBody).error).toEqual({
        errorCode: '210',
        message: 'Permission Denied',
        details: 'This caller lacks the scope "jobs:cancel-reserved".',
      });
      expect(gatewayRequests(emulator)).toHaveLength(0);
      expect((await as('bulk-token-cancels-reserved-jobs-in-bulk-1')).statusCode).toBe(200);
    });

    it.each([
      ['dryRun not a boolean', '{"searchType":"url","searchKeyword":"x","dryRun":"yes"}'],
      ['a negative expectAtMost', '{"searchType":"url","searchKeyword":"x","expectAtMost":-1}'],
      ['a fractional expectAtMost', '{"searchType":"url","searchKeyword":"x","expectAtMost":1.5}'],
      ['no keyword', '{"searchType":"url"}'],
      ['an empty keyword', '{"searchType":"url","searchKeyword":""}'],
      ['searchType ""', '{"searchType":"","searchKeyword":"x"}'],
      ['an unknown member', '{"searchType":"url","searchKeyword":"x","statusCode":null}'],
    ])('refuses %s with 400/100 and sends nothing', async (_case, body) => {
      const result = await fn.cancelReserved(
        httpEvent('jobs-cancel-reserved.json', { body }),
        lambdaContext(),
      );
      expect(result.statusCode).toBe(400);
      expect(gatewayRequests(emulator)).toHaveLength(0);
    });
  });

  describe('upstream faults', () => {
    it.each(['410', '420'])('retries a GET throttled with 429/%s and succeeds', async (code) => {
      emulator.faults.add({ kind: 'status', status: 429, errorCode: code, times: 2 });
      const result = await fn.list(httpEvent('jobs-list.json'), lambdaContext());
      expect(result.statusCode).toBe(200);
      expect(gatewayRequests(emulator)).toHaveLength(3);
    });

    it('passes an exhausted quota (429/400) through without retrying', async () => {
      emulator.faults.add({ kind: 'status', status: 429, errorCode: '400' });
      const result = await fn.list(httpEvent('jobs-list.json'), lambdaContext());
      expect(result.statusCode).toBe(429);
      expect((jsonBody(result) as ErrorBody).error).toMatchObject({
        errorCode: '400',
        message: 'Quota Exceeded',
      });
      expect(gatewayRequests(emulator)).toHaveLength(1);
    });

    it.each([503, 504])('retries a GET answered %i', async (status) => {
      emulator.faults.add({ kind: 'status', status });
      const result = await fn.list(httpEvent('jobs-list.json'), lambdaContext());
      expect(result.statusCode).toBe(200);
      expect(gatewayRequests(emulator)).toHaveLength(2);
    });

    it('retries a GET whose connection was reset', async () => {
      emulator.faults.add({ kind: 'reset' });
      const result = await fn.list(httpEvent('jobs-list.json'), lambdaContext());
      expect(result.statusCode).toBe(200);
    });

    it("signs again with the gateway's clock when it is 6 minutes off, once per container", async () => {
      // A container of its own: the offset it learns stays with it.
      const fresh = await loadHandlers(emulatorEnv(emulator), { list: SCAN_FUNCTIONS.list });
      emulator.faults.add({ kind: 'skew', ms: 6 * 60_000, times: 0 });
      const first = await fresh.list(httpEvent('jobs-list.json'), lambdaContext());
      expect(first.statusCode).toBe(200);
      expect(gatewayRequests(emulator)).toHaveLength(2);
      const second = await fresh.list(httpEvent('jobs-list.json'), lambdaContext());
      expect(second.statusCode).toBe(200);
      expect(gatewayRequests(emulator)).toHaveLength(3);
      const warnings = logLines.filter((line) => line.includes('local clock is off'));
      expect(warnings).toHaveLength(1);
      // The Date header counts whole seconds: the offset measured is 359 to 360 s.
      const logged = JSON.parse(warnings[0]!) as { level: string; offsetSeconds: number };
      expect(logged.level).toBe('warn');
      expect(logged.offsetSeconds).toBeGreaterThanOrEqual(359);
      expect(logged.offsetSeconds).toBeLessThanOrEqual(360);
    });

    it('changes nothing for a clock within the gateway window', async () => {
      const fresh = await loadHandlers(emulatorEnv(emulator), { list: SCAN_FUNCTIONS.list });
      emulator.faults.add({ kind: 'skew', ms: 3 * 60_000, times: 0 });
      const result = await fresh.list(httpEvent('jobs-list.json'), lambdaContext());
      expect(result.statusCode).toBe(200);
      expect(gatewayRequests(emulator)).toHaveLength(1);
      expect(logLines.some((line) => line.includes('local clock is off'))).toBe(false);
    });

    it('writes metrics of its upstream calls in embedded metric format', async () => {
      emulator.faults.add({ kind: 'status', status: 503 });
      expect((await fn.list(httpEvent('jobs-list.json'), lambdaContext())).statusCode).toBe(200);
      const metrics = logLines
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((line) => line._aws !== undefined);
      expect(metrics).toContainEqual(
        expect.objectContaining({
          Function: 'listJobs',
          Service: 'scan-jobs',
          Outcome: 'success',
          UpstreamCalls: 1,
        }),
      );
      expect(metrics).toContainEqual(
        expect.objectContaining({ Service: 'scan-jobs', UpstreamRetries: 1 }),
      );
    });

    it('answers an upstream error in XML when the caller asks for XML', async () => {
      emulator.faults.add({ kind: 'status', status: 429, errorCode: '400' });
      const result = await fn.list(
        httpEvent('jobs-list.json', { headers: { accept: 'text/xml' } }),
        lambdaContext(),
      );
      expect(result.statusCode).toBe(429);
      expect(result.headers?.['Content-Type']).toBe('text/xml');
      expect(result.body).toBe(
        '<?xml version="1.0" encoding="UTF-8"?><result><error><errorCode>400</errorCode><message>Quota Exceeded</message></error></result>',
      );
    });
  });

  it('logs one line per request, with no key, signature or token in any of them', async () => {
    const secret = await demoSecret();
    await fn.list(httpEvent('jobs-list.json'), lambdaContext());
    await fn.list(
      httpEvent('jobs-list.json', { headers: { authorization: 'Bearer wrong-token' } }),
      lambdaContext(),
    );
    emulator.faults.add({ kind: 'reset', times: 0 });
    await fn.cancel(httpEvent('jobs-cancel.json'), lambdaContext());
    const logged = logLines.join('\n');
    expect(logLines.length).toBeGreaterThanOrEqual(3);
    for (const value of [secret.iam!.secretKey, secret.apiKey!, DEMO_TOKEN, 'wrong-token']) {
      expect(logged).not.toContain(value);
    }
    const signatures = emulator.requests
      .map((r) => r.headers['x-platform-apigw-signature-v2'])
      .filter(Boolean);
    for (const signature of signatures) expect(logged).not.toContain(String(signature));
    expect(logged).not.toMatch(/\n\s+at /);
  });
});

/** The logged lines that carry the configuration alarm's metric. */
function configurationErrors(lines: readonly string[]): Record<string, unknown>[] {
  return lines
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => 'ConfigurationErrors' in line);
}

describe('scan job functions with other credentials', () => {
  const emulator = emulatorForSuite({ vendor: 'ncp' });

  it('follow GATEWAY_VENDOR in every header name', async () => {
    const fn = await loadHandlers(emulatorEnv(emulator, { GATEWAY_VENDOR: 'NCP' }), {
      list: SCAN_FUNCTIONS.list,
    });
    const result = await fn.list(httpEvent('jobs-list.json'), lambdaContext());
    expect(result.statusCode).toBe(200);
    expect(emulator.requests.at(-1)?.headers['x-ncp-apigw-signature-v2']).toBeTruthy();
  });

  it("answer the operator's 500/900 when the vendor word does not match the gateway (it refuses the headers it cannot read)", async () => {
    const lines = captureLogLines();
    const fn = await loadHandlers(emulatorEnv(emulator), { list: SCAN_FUNCTIONS.list });
    const result = await fn.list(httpEvent('jobs-list.json'), lambdaContext());
    vi.restoreAllMocks();
    expect(result.statusCode).toBe(500);
    expect((jsonBody(result) as ErrorBody).error.errorCode).toBe('900');
    expect(configurationErrors(lines)).toEqual([
      expect.objectContaining({ Cause: 'credentials', upstreamStatus: 401 }),
    ]);
  });

  it.each([
    [
      'an inactive access key',
      (s: Awaited<ReturnType<typeof demoSecret>>) => ({
        ...s,
        iam: { accessKey: INACTIVE_ACCESS_KEY, secretKey: INACTIVE_SECRET_KEY },
      }),
    ],
    [
      'a wrong secret key',
      (s: Awaited<ReturnType<typeof demoSecret>>) => ({
        ...s,
        iam: { ...s.iam!, secretKey: 'wrong' },
      }),
    ],
    ['no API key', (s: Awaited<ReturnType<typeof demoSecret>>) => ({ ...s, apiKey: undefined })],
  ])(
    "answer the gateway's refusal of %s as the operator's 500/900, never the caller's 401, and count it for the alarm",
    async (_case, change) => {
      const file = await secretFile(change(await demoSecret()));
      const lines = captureLogLines();
      const fn = await loadHandlers(
        emulatorEnv(emulator, { GATEWAY_VENDOR: 'ncp', SECRETS_FILE: file }),
        {
          list: SCAN_FUNCTIONS.list,
        },
      );
      const before = emulator.requests.length;
      const result = await fn.list(httpEvent('jobs-list.json'), lambdaContext());
      vi.restoreAllMocks();
      expect(result.statusCode).toBe(500);
      expect(jsonBody(result)).toEqual({
        error: {
          errorCode: '900',
          message: 'Unexpected Error',
          details:
            "The platform refused this service's own credentials (the scan-jobs signing keys (iam, apiKey)). " +
            'Its operator must correct the secret; retrying will not help until then.',
        },
      });
      // Sent once: the secret, read again, holds the same keys, so nothing is sent twice.
      expect(emulator.requests.length - before).toBe(1);
      // One line for the operator, with the alarm's metric; the request's line says why it is 900.
      expect(configurationErrors(lines)).toEqual([
        expect.objectContaining({
          level: 'error',
          credentials: 'the scan-jobs signing keys (iam, apiKey)',
          upstreamStatus: 401,
          upstreamErrorCode: '200',
          Cause: 'credentials',
          ConfigurationErrors: 1,
        }),
      ]);
      expect(
        lines.map((line) => JSON.parse(line)).find((line) => line.message === 'request failed'),
      ).toMatchObject({
        status: 500,
        errorCode: '900',
        reason: 'credentials-refused 401/200',
      });
    },
  );

  it('answer 504/510 when the upstream does not answer within UPSTREAM_TIMEOUT_MS', async () => {
    const fn = await loadHandlers(
      emulatorEnv(emulator, { GATEWAY_VENDOR: 'ncp', UPSTREAM_TIMEOUT_MS: '300' }),
      {
        list: SCAN_FUNCTIONS.list,
      },
    );
    emulator.faults.add({ kind: 'latency', ms: 2000 });
    const result = await fn.list(httpEvent('jobs-list.json'), lambdaContext());
    expect(result.statusCode).toBe(504);
    expect(jsonBody(result)).toEqual({ error: { errorCode: '510', message: 'Endpoint Timeout' } });
    emulator.faults.clear();
  });

  it('fail their init, naming SCAN_BASE_URL, when deployed without it', async () => {
    process.env.AWS_LAMBDA_FUNCTION_NAME = 'listJobs';
    try {
      const { SCAN_BASE_URL: _unset, ...env } = emulatorEnv(emulator);
      await expect(loadHandlers(env, { list: SCAN_FUNCTIONS.list })).rejects.toThrow(
        /SCAN_BASE_URL: required when deployed/,
      );
    } finally {
      delete process.env.AWS_LAMBDA_FUNCTION_NAME;
    }
  });

  it("refuse a demo caller's token when deployed, dev included: 500/900, the field named, the configuration metric raised", async () => {
    const demo = await demoSecret();
    const own = 'a-token-of-this-stage-only-0123456789abcdef';
    process.env.AWS_LAMBDA_FUNCTION_NAME = 'platform-gateway-dev-listJobs';
    // Required when deployed; never reached, since no caller here has a plan.
    process.env.USAGE_TABLE = 'platform-gateway-dev-usage';
    try {
      const lines = captureLogLines();
      const withDemo = await loadHandlers(
        emulatorEnv(emulator, { GATEWAY_VENDOR: 'ncp', SECRETS_FILE: await secretFile(demo) }),
        { list: SCAN_FUNCTIONS.list },
      );
      const refused = await withDemo.list(httpEvent('jobs-list.json'), lambdaContext());
      vi.restoreAllMocks();
      expect(refused.statusCode).toBe(500);
      expect((jsonBody(refused) as ErrorBody).error.errorCode).toBe('900');
      const cause = lines.find((line) => line.includes('the secret cannot be used')) ?? '';
      expect(JSON.parse(cause)).toMatchObject({ Cause: 'secret', ConfigurationErrors: 1 });
      expect(cause).toContain("callers.0.token: a demo caller's token");
      expect(cause).toContain("webhooks.demo.secret: the demo webhook's secret");
      for (const caller of demo.callers ?? []) expect(cause).not.toContain(caller.token);

      // The same document with the stage's own token and webhook secret serves.
      const fresh = await loadHandlers(
        emulatorEnv(emulator, {
          GATEWAY_VENDOR: 'ncp',
          SECRETS_FILE: await secretFile({
            ...demo,
            callers: [{ id: 'reporting', token: own, scopes: ['jobs:read'] }],
            webhooks: {
              demo: { secret: `whsec_${Buffer.alloc(32, 7).toString('base64')}`, action: 'hello' },
            },
          }),
        }),
        { list: SCAN_FUNCTIONS.list },
      );
      const served = await fresh.list(
        httpEvent('jobs-list.json', { headers: { authorization: `Bearer ${own}` } }),
        lambdaContext(),
      );
      expect(served.statusCode).toBe(200);
    } finally {
      delete process.env.AWS_LAMBDA_FUNCTION_NAME;
      delete process.env.USAGE_TABLE;
    }
  });

  it('answer 503/500 when the upstream is unreachable', async () => {
    const fn = await loadHandlers(emulatorEnv(emulator, { SCAN_BASE_URL: 'http://127.0.0.1:1' }), {
      list: SCAN_FUNCTIONS.list,
    });
    const result = await fn.list(httpEvent('jobs-list.json'), lambdaContext());
    expect(result.statusCode).toBe(503);
    expect(jsonBody(result)).toEqual({ error: { errorCode: '500', message: 'Endpoint Error' } });
  });

  it('answer 500/900 (not "try again later") when the secret is malformed from the start, log the field and raise the configuration metric', async () => {
    const file = await secretFile({
      iam: { accessKey: 'AK', secretKey: 987654321987 },
      callers: (await demoSecret()).callers,
    });
    const lines: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((line: unknown) => {
      lines.push(String(line));
    });
    const fn = await loadHandlers(emulatorEnv(emulator, { SECRETS_FILE: file }), {
      list: SCAN_FUNCTIONS.list,
    });
    const results = [];
    for (let i = 0; i < 5; i++)
      results.push(await fn.list(httpEvent('jobs-list.json'), lambdaContext()));
    vi.restoreAllMocks();
    for (const result of results) {
      expect(result.statusCode).toBe(500);
      expect(result.headers?.['Retry-After']).toBeUndefined();
      const { error } = jsonBody(result) as ErrorBody;
      expect(error.errorCode).toBe('900');
      expect(JSON.stringify(error)).not.toMatch(/try again later|iam/i);
    }
    const log = lines.join('\n');
    expect(log).toContain('iam.secretKey');
    expect(log).not.toContain('987654321987');
    // One read, then the backoff: five requests do not mean five reads. The line that names the
    // cause carries the metric the ConfigurationErrors alarm watches.
    const causes = lines.filter((line) => line.includes('the secret cannot be used'));
    expect(causes).toHaveLength(1);
    expect(JSON.parse(causes[0]!)).toMatchObject({ Cause: 'secret', ConfigurationErrors: 1 });
  });

  it('keep serving the last good secret when the secret turns malformed', async () => {
    const good = await demoSecret();
    const file = await secretFile(good);
    const lines: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((line: unknown) => {
      lines.push(String(line));
    });
    const fn = await loadHandlers(
      emulatorEnv(emulator, {
        GATEWAY_VENDOR: 'ncp',
        SECRETS_FILE: file,
        SECRETS_TTL_SECONDS: '0',
      }),
      { list: SCAN_FUNCTIONS.list },
    );
    expect((await fn.list(httpEvent('jobs-list.json'), lambdaContext())).statusCode).toBe(200);
    // An unused webhook entry breaks the document: the service must not care.
    await writeFile(
      file,
      JSON.stringify({ ...good, webhooks: { broken: { secret: 'not-a-secret', action: 'x' } } }),
    );
    for (let i = 0; i < 5; i++) {
      expect((await fn.list(httpEvent('jobs-list.json'), lambdaContext())).statusCode).toBe(200);
    }
    vi.restoreAllMocks();
    const warnings = lines.filter((line) => line.includes('the last good secret keeps serving'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('webhooks.broken.secret');
    expect(warnings[0]).not.toContain('not-a-secret');
  });
});
