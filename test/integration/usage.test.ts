/**
 * Usage plans through the real middy stack: the packaged handlers, loaded as a container loads
 * them, admitting against a usage table in dynalite (whose conditional writes are atomic, as
 * DynamoDB's are), with the emulator as the platform. What the admission answers, the headers
 * every answer to a caller under a plan carries, what counts and what is given back, GET
 * /usage, the cancel-reserved lease, and the store down under either policy.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { demoSecretFor } from '../../emulator/index.js';
import { startDynalite } from '../../scripts/local-ledger.js';
import tables from '../../scripts/sls/tables.cjs';
import { pointAwsSdkAt } from '../helpers/aws.js';
import { emulatorForSuite } from '../helpers/emulator.js';
import { httpEvent, jsonBody, lambdaContext } from '../helpers/lambda.js';
import { captureLogLines } from '../helpers/logs.js';
import { emulatorEnv, loadHandlers, secretFile } from '../helpers/platform.js';

type Result = APIGatewayProxyStructuredResultV2;
type ErrorBody = { error: { errorCode: string; message: string; details?: string } };

const token = (id: string) => `${id}-token-of-at-least-32-characters-0001`;
const caller = (id: string, scopes: string[], plan?: unknown) => ({
  id,
  token: token(id),
  scopes,
  ...(plan ? { plan } : {}),
});
const header = (result: Result, name: string) =>
  Object.entries(result.headers ?? {}).find(([key]) => key.toLowerCase() === name)?.[1];
const as = (id: string) => ({ authorization: `Bearer ${token(id)}` });

let dynalite: Server;
let restoreEnv: () => void;
let tableNumber = 0;

/** A usage table of its own (one per loaded container set): counts start at nothing. */
async function newUsageTable(): Promise<string> {
  const endpoint = `http://127.0.0.1:${(dynalite.address() as AddressInfo).port}`;
  const client = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  const name = `usage-it-${++tableNumber}`;
  await client.send(new CreateTableCommand(tables.createTableInput(tables.usage, name)));
  client.destroy();
  return name;
}

beforeAll(async () => {
  dynalite = await startDynalite();
  restoreEnv = pointAwsSdkAt(
    'AWS_ENDPOINT_URL_DYNAMODB',
    `http://127.0.0.1:${(dynalite.address() as AddressInfo).port}`,
  );
});
afterAll(async () => {
  restoreEnv();
  await new Promise((resolve) => dynalite.close(resolve));
});
afterEach(() => {
  vi.restoreAllMocks();
});

describe('usage plans through the stack', () => {
  const emulator = emulatorForSuite();

  /** The handlers, over a secret with these callers and account plan, and a fresh table. */
  async function load(
    callers: unknown[],
    options: { accountPlan?: unknown; extra?: Record<string, string> } = {},
  ) {
    const secret = { ...demoSecretFor(emulator.url), callers };
    if (options.accountPlan) Object.assign(secret, { accountPlan: options.accountPlan });
    const file = await secretFile(secret);
    const table = await newUsageTable();
    return loadHandlers(
      emulatorEnv(emulator, {
        SECRETS_FILE: file,
        USAGE_TABLE: table,
        UPSTREAM_TIMEOUT_MS: '60000',
        ...options.extra,
      }),
      {
        list: 'functions/jobs/list.ts',
        report: 'functions/jobs/report.ts',
        language: 'functions/catalogue/language.ts',
        cancelReserved: 'functions/jobs/cancel-reserved.ts',
        usage: 'functions/usage.ts',
      },
    );
  }

  const list = (headers: Record<string, string>) =>
    httpEvent('jobs-list.json', { query: 'page=1&limit=10', headers });

  it('admits exactly the day quota of 200 requests at once, and refuses the rest 429/400 with Retry-After', async () => {
    const handlers = await load([caller('metered', ['jobs:read'], { dayQuotaRequest: 50 })]);
    const results = await Promise.all(
      Array.from({ length: 200 }, () => handlers.list(list(as('metered')), lambdaContext(120_000))),
    );
    const statuses = results.map((result) => result.statusCode);
    expect(statuses.filter((status) => status === 200)).toHaveLength(50);
    expect(statuses.filter((status) => status === 429)).toHaveLength(150);
    for (const refused of results.filter((result) => result.statusCode === 429)) {
      const body = jsonBody(refused) as ErrorBody;
      expect(body.error).toMatchObject({ errorCode: '400', message: 'Quota Exceeded' });
      expect(body.error.details).toContain('caller plan');
      expect(body.error.details).toContain('dayQuotaRequest');
      expect(Number(header(refused, 'retry-after'))).toBeGreaterThanOrEqual(1);
      expect(header(refused, 'ratelimit-policy')).toContain('q=50');
    }
    // Only the admitted requests reached the platform.
    expect(emulator.requests.filter((r) => r.url.startsWith('/api/v1/jobs?')).length).toBe(50);
  });

  it('refuses over the rate with 429/420 and Retry-After, and says so on every answer', async () => {
    emulator.requests.length = 0;
    const handlers = await load([caller('bursty', ['jobs:read'], { rateRps: 1, burst: 2 })]);
    const results = await Promise.all(
      Array.from({ length: 20 }, () => handlers.list(list(as('bursty')), lambdaContext(120_000))),
    );
    const refused = results.filter((result) => result.statusCode === 429);
    // Two at once, then one a second: however slow the machine, most of 20 at once are refused.
    expect(refused.length).toBeGreaterThan(0);
    for (const result of refused) {
      expect((jsonBody(result) as ErrorBody).error).toMatchObject({
        errorCode: '420',
        message: 'Rate Limited',
      });
      expect(Number(header(result, 'retry-after'))).toBeGreaterThanOrEqual(1);
    }
    for (const result of results) {
      expect(header(result, 'ratelimit-policy'), String(result.statusCode)).toMatch(/q=1;w=1/);
      expect(header(result, 'ratelimit'), String(result.statusCode)).toMatch(/;r=\d+;t=\d+/);
    }
  });

  it("puts the RateLimit fields on an upstream error answer too, and none on a plan-less caller's", async () => {
    const handlers = await load([
      caller('metered', ['jobs:read'], { dayQuotaRequest: 10 }),
      caller('free', ['jobs:read']),
    ]);
    const missing = (headers: Record<string, string>) =>
      httpEvent('jobs-report.json', { pathParameters: { instanceId: '999999999' }, headers });
    const under = await handlers.report(missing(as('metered')), lambdaContext());
    expect(under.statusCode).toBeGreaterThanOrEqual(400);
    expect(header(under, 'ratelimit-policy')).toContain('q=10');
    const free = await handlers.list(list(as('free')), lambdaContext());
    expect(free.statusCode).toBe(200);
    expect(header(free, 'ratelimit-policy')).toBeUndefined();
    expect(header(free, 'ratelimit')).toBeUndefined();
  });

  it('counts the characters of text sent to translate against a character quota', async () => {
    const handlers = await load([
      caller('chatbot', ['catalogue:translate'], { dayQuotaCharacters: { translate: 10 } }),
    ]);
    const translate = (text: string) =>
      handlers.language(
        httpEvent('catalogue-language.json', {
          routeKey: 'POST /translate',
          path: '/translate',
          body: JSON.stringify({ source: 'ko', target: 'en', text }),
          headers: { ...as('chatbot'), 'content-type': 'application/json' },
        }),
        lambdaContext(),
      );
    expect((await translate('안녕하세요!')).statusCode).toBe(200);
    const over = await translate('반갑습니다!');
    expect(over.statusCode).toBe(429);
    expect((jsonBody(over) as ErrorBody).error).toMatchObject({ errorCode: '400' });
    expect((jsonBody(over) as ErrorBody).error.details).toContain('dayQuotaCharacters.translate');
  });

  it('holds every caller together to the account plan, and never names another caller', async () => {
    const handlers = await load(
      [caller('a', ['jobs:read']), caller('b', ['jobs:read'], { dayQuotaRequest: 100 })],
      { accountPlan: { dayQuotaRequest: 3 } },
    );
    const statuses: number[] = [];
    for (const id of ['a', 'b', 'a', 'b']) {
      statuses.push((await handlers.list(list(as(id)), lambdaContext())).statusCode ?? 0);
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    const refused = await handlers.list(list(as('a')), lambdaContext());
    const details = (jsonBody(refused) as ErrorBody).error.details ?? '';
    expect(details).toContain('account plan');
    expect(details).not.toMatch(/\bb\b/);
  });

  it('GET /usage answers the caller its own usage, and another only with usage:read', async () => {
    const handlers = await load([
      caller('metered', ['jobs:read'], { dayQuotaRequest: 10, monthQuotaRequest: 100 }),
      caller('auditor', ['usage:read']),
    ]);
    for (let i = 0; i < 3; i++) await handlers.list(list(as('metered')), lambdaContext());
    const usage = (headers: Record<string, string>, query = '') =>
      handlers.usage(httpEvent('usage.json', { query, headers }), lambdaContext());
    const own = await usage(as('metered'));
    expect(own.statusCode).toBe(200);
    expect(jsonBody(own)).toMatchObject({
      caller: {
        id: 'metered',
        plan: { dayQuotaRequest: 10 },
        counted: true,
        day: { requests: 3, remaining: { requests: 7 } },
        month: { requests: 3, remaining: { requests: 97 } },
      },
      account: null,
    });
    const other = await usage(as('auditor'), 'caller=metered');
    expect(jsonBody(other)).toMatchObject({ caller: { id: 'metered', day: { requests: 3 } } });
    const notAllowed = await usage(as('metered'), 'caller=auditor');
    expect([notAllowed.statusCode, (jsonBody(notAllowed) as ErrorBody).error.errorCode]).toEqual([
      403,
      '210',
    ]);
    const unknown = await usage(as('auditor'), 'caller=nobody');
    expect(unknown.statusCode).toBe(404);
  });

  it('gives the units back when the call could not have reached the platform', async () => {
    const secret = {
      ...demoSecretFor('http://127.0.0.1:1'),
      callers: [caller('metered', ['jobs:read'], { dayQuotaRequest: 2 })],
    };
    const table = await newUsageTable();
    const env = {
      SECRETS_FILE: await secretFile(secret),
      USAGE_TABLE: table,
      SCAN_BASE_URL: 'http://127.0.0.1:1',
    };
    const closed = await loadHandlers(emulatorEnv(emulator, env), {
      list: 'functions/jobs/list.ts',
      usage: 'functions/usage.ts',
    });
    for (let i = 0; i < 4; i++) {
      expect((await closed.list(list(as('metered')), lambdaContext())).statusCode).toBe(503);
    }
    const usage = await closed.usage(
      httpEvent('usage.json', { headers: as('metered') }),
      lambdaContext(),
    );
    expect(jsonBody(usage)).toMatchObject({ caller: { day: { requests: 0 } } });
  });

  it('runs one cancel-reserved of a caller at a time: a second answers 429/410 while the first runs', async () => {
    const handlers = await load([caller('ops', ['jobs:cancel-reserved', 'jobs:read'])]);
    emulator.faults.add({
      kind: 'latency',
      ms: 1500,
      match: { pathPrefix: '/api/v1/jobs/search' },
    });
    const cancel = () =>
      handlers.cancelReserved(
        httpEvent('jobs-cancel-reserved.json', {
          body: '{"searchType":"url","searchKeyword":"demo","dryRun":true}',
          headers: as('ops'),
        }),
        lambdaContext(25_000),
      );
    const first = cancel();
    // The first holds its lease once its search reached the platform.
    while (!emulator.requests.some((r) => r.url.startsWith('/api/v1/jobs/search'))) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const second = await cancel();
    expect([second.statusCode, (jsonBody(second) as ErrorBody).error.errorCode]).toEqual([
      429,
      '410',
    ]);
    expect(Number(header(second, 'retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await first).statusCode).toBe(200);
    // Released: the next one runs.
    emulator.faults.clear();
    expect((await cancel()).statusCode).toBe(200);
  });
});

describe('usage plans when the usage table cannot answer', () => {
  const emulator = emulatorForSuite();

  async function withStoreDown(policy: 'open' | 'closed') {
    const secret = {
      ...demoSecretFor(emulator.url),
      callers: [
        caller('metered', ['jobs:read'], { dayQuotaRequest: 5 }),
        caller('free', ['jobs:read']),
      ],
    };
    return loadHandlers(
      emulatorEnv(emulator, {
        SECRETS_FILE: await secretFile(secret),
        // A table that does not exist: every call to the store fails.
        USAGE_TABLE: 'no-such-usage-table',
        USAGE_STORE_FAILURE: policy,
      }),
      { list: 'functions/jobs/list.ts' },
    );
  }
  const list = (id: string) =>
    httpEvent('jobs-list.json', { query: 'page=1&limit=10', headers: as(id) });

  it('open (the default): admits, counts nowhere, and says so in a metric', async () => {
    const lines = captureLogLines();
    const { list: handler } = await withStoreDown('open');
    const result = await handler(list('metered'), lambdaContext());
    expect(result.statusCode).toBe(200);
    const request = lines
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .find((line) => line.message === 'request');
    expect(request).toMatchObject({ UsageStoreFailures: 1, Policy: 'open' });
  });

  it('closed: answers 503/500 and sends nothing', async () => {
    emulator.requests.length = 0;
    const { list: handler } = await withStoreDown('closed');
    const result = await handler(list('metered'), lambdaContext());
    expect([result.statusCode, (jsonBody(result) as ErrorBody).error.errorCode]).toEqual([
      503,
      '500',
    ]);
    expect(emulator.requests.filter((r) => r.url.startsWith('/api/v1/jobs'))).toEqual([]);
  });

  it('a caller without a plan, and no account plan, costs no call to the store', async () => {
    // Held closed, a call to the missing table would refuse the request: it is answered.
    const { list: handler } = await withStoreDown('closed');
    expect((await handler(list('free'), lambdaContext())).statusCode).toBe(200);
  });
});
