/**
 * Usage plans through the real middy stack: the packaged handlers, loaded as a container loads
 * them, admitting against a usage table in dynalite (whose conditional writes are atomic, as
 * DynamoDB's are), with the emulator as the platform. What the admission answers, the headers
 * every answer to a caller under a plan carries, what counts and what is given back (the plan
 * counts what reached the platform, on a busy machine too), GET /usage, cancel-reserved's
 * lease and its unit for every call it sends, and the store down under either policy.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { demoSecretFor, syntheticScanJobs } from '../../emulator/index.ts';
import { ADMISSION_BOUNDS } from '../../lib/usage/dynamo-usage-store.ts';
import { createActiveTable, startDynalite } from '../../scripts/local-ledger.ts';
import * as tables from '../../sls/resolvers/tables.ts';
import { pointAwsSdkAt } from '../helpers/aws.ts';
import { emulatorForSuite, startTestEmulator } from '../helpers/emulator.ts';
import { httpEvent, jsonBody, lambdaContext } from '../helpers/lambda.ts';
import { captureLogLines } from '../helpers/logs.ts';
import { emulatorEnv, loadHandlers, secretFile } from '../helpers/platform.ts';

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
  await createActiveTable(client, tables.createTableInput(tables.usage, name));
  client.destroy();
  return name;
}

/** Counts the UpdateItem calls dynalite receives from now on, from every container. */
function countWrites() {
  let count = 0;
  const listener = (request: IncomingMessage) => {
    if (String(request.headers['x-amz-target']).endsWith('.UpdateItem')) count++;
  };
  dynalite.on('request', listener);
  return { count: () => count, stop: () => dynalite.off('request', listener) };
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
        caller('paced', ['jobs:read'], { rateRps: 1, burst: 2 }),
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

  it.each(['open', 'closed'] as const)(
    'holds a caller to its rate from memory, %s: an outage never lifts a rate',
    async (policy) => {
      emulator.requests.length = 0;
      const { list: handler } = await withStoreDown(policy);
      const results = await Promise.all(
        Array.from({ length: 10 }, () => handler(list('paced'), lambdaContext())),
      );
      const statuses = results.map((result) => result.statusCode).sort();
      // A burst of 2, then one a second: however slow the machine, at most a few more.
      const admitted = statuses.filter((status) => status === 200).length;
      expect(admitted).toBeGreaterThanOrEqual(2);
      expect(admitted).toBeLessThanOrEqual(4);
      for (const refused of results.filter((result) => result.statusCode !== 200)) {
        expect([refused.statusCode, (jsonBody(refused) as ErrorBody).error.errorCode]).toEqual([
          429,
          '420',
        ]);
      }
      expect(emulator.requests.filter((r) => r.url.startsWith('/api/v1/jobs'))).toHaveLength(
        admitted,
      );
    },
  );
});

describe('usage plans while the usage table does not answer', () => {
  const emulator = emulatorForSuite();

  it('makes the first planned request wait on the table for its attempts, and the next ones within the while not at all', async () => {
    // A table that takes every request and never answers.
    let received = 0;
    const silent = createServer(() => {
      received++;
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const restore = pointAwsSdkAt(
      'AWS_ENDPOINT_URL_DYNAMODB',
      `http://127.0.0.1:${(silent.address() as AddressInfo).port}`,
    );
    try {
      captureLogLines();
      const secret = {
        ...demoSecretFor(emulator.url),
        callers: [caller('metered', ['jobs:read'], { rateRps: 10, dayQuotaRequest: 100 })],
      };
      const { list } = await loadHandlers(
        emulatorEnv(emulator, {
          SECRETS_FILE: await secretFile(secret),
          USAGE_TABLE: 'silent',
          USAGE_STORE_FAILURE: 'open',
        }),
        { list: 'functions/jobs/list.ts' },
      );
      const listing = () =>
        list(httpEvent('jobs-list.json', { query: 'page=1', headers: as('metered') }), {
          ...lambdaContext(),
        });
      // Open: admitted once the table has had its attempts (each ended by 2 s of silence).
      expect((await listing()).statusCode).toBe(200);
      expect(received).toBe(ADMISSION_BOUNDS.maxAttempts);
      // Within the while, each is decided from memory at once: the table hears nothing.
      for (let i = 0; i < 5; i++) expect((await listing()).statusCode).toBe(200);
      expect(received).toBe(ADMISSION_BOUNDS.maxAttempts);
    } finally {
      restore();
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});

describe('the plan counts what reached the platform', () => {
  const emulator = emulatorForSuite();

  async function load(callers: unknown[], secretChanges: Record<string, unknown> = {}) {
    const secret = { ...demoSecretFor(emulator.url), callers, ...secretChanges };
    const table = await newUsageTable();
    const handlers = await loadHandlers(
      emulatorEnv(emulator, { SECRETS_FILE: await secretFile(secret), USAGE_TABLE: table }),
      {
        invoke: 'functions/actions/invoke.ts',
        list: 'functions/jobs/list.ts',
        usage: 'functions/usage.ts',
      },
    );
    const { getRuntime } = await import('../../lib/runtime.ts');
    const { usageGateOf } = await import('../../lib/usage/setup.ts');
    const gate = usageGateOf(getRuntime());
    const spentToday = async (id: string) => {
      await gate.settled();
      const usage = await handlers.usage(
        httpEvent('usage.json', { headers: as(id) }),
        lambdaContext(),
      );
      return (jsonBody(usage) as { caller: { day: { requests: number } } }).caller.day.requests;
    };
    return { ...handlers, spentToday };
  }
  const action = (name: string, method = 'POST') =>
    httpEvent('actions-invoke.json', {
      method,
      path: `/actions/${name}`,
      pathParameters: { name },
      body: '{}',
      headers: { ...as('runner'), 'content-type': 'application/json' },
    });

  it('gives back what a request refused before anything went out took: an unknown action, a method the target does not take', async () => {
    emulator.requests.length = 0;
    const runner = caller('runner', ['actions:*'], { dayQuotaRequest: 3 });
    const { invoke, spentToday } = await load([runner]);
    for (let i = 0; i < 4; i++) {
      const unknown = await invoke(action('nope'), lambdaContext());
      expect([unknown.statusCode, (jsonBody(unknown) as ErrorBody).error.errorCode]).toEqual([
        404,
        '300',
      ]);
      // Every answer to a caller under a plan carries its fields.
      expect(header(unknown, 'ratelimit-policy')).toContain('q=3');
    }
    const wrongMethod = await invoke(action('hello', 'GET'), lambdaContext());
    expect(wrongMethod.statusCode).toBe(405);
    expect(await spentToday('runner')).toBe(0);
    expect(emulator.requests).toEqual([]);
    // The quota is whole: three runs go through.
    for (let i = 0; i < 3; i++)
      expect((await invoke(action('hello'), lambdaContext())).statusCode).toBe(200);
    expect((await invoke(action('hello'), lambdaContext())).statusCode).toBe(429);
    expect(await spentToday('runner')).toBe(3);
  });

  it('costs nothing of the usage table for a request refused before it is admitted: 60 refused action requests write nothing', async () => {
    emulator.requests.length = 0;
    // Held to 1 a second (a burst of 1) and 5 a day, and under an account plan (8 shards).
    const runner = caller('runner', ['actions:*'], { rateRps: 1, burst: 1, dayQuotaRequest: 5 });
    const { invoke, spentToday } = await load([runner], {
      accountPlan: { dayQuotaRequest: 1000 },
    });
    const writes = countWrites();
    const refused: number[] = [];
    for (let i = 0; i < 20; i++) {
      // A method the non-web action does not take, an unknown action, a body it cannot take.
      refused.push((await invoke(action('hello', 'GET'), lambdaContext())).statusCode ?? 0);
      refused.push((await invoke(action('nope'), lambdaContext())).statusCode ?? 0);
      const array = { ...action('hello'), body: '[1]' };
      refused.push((await invoke(array, lambdaContext())).statusCode ?? 0);
    }
    expect(refused.filter((status) => status === 405)).toHaveLength(20);
    expect(refused.filter((status) => status === 404)).toHaveLength(20);
    expect(refused.filter((status) => status === 400)).toHaveLength(20);
    expect(writes.count()).toBe(0);
    expect(emulator.requests).toEqual([]);
    // Nothing was taken: the day quota is whole, and the token is there.
    expect((await invoke(action('hello'), lambdaContext())).statusCode).toBe(200);
    expect(await spentToday('runner')).toBe(1);
    writes.stop();
  });

  it('holds a flood of requests refused after admission to the rate: each gives its units back and keeps its token', async () => {
    captureLogLines();
    const runner = caller('runner', ['actions:*'], { rateRps: 1, burst: 1, dayQuotaRequest: 100 });
    const { invoke, spentToday } = await load([runner], {
      // An action nothing listens for: its connection is refused, so its call never went out.
      actions: { down: { url: 'http://127.0.0.1:1/fx/down' } },
    });
    const started = performance.now();
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) {
      statuses.push((await invoke(action('down'), lambdaContext())).statusCode ?? 0);
    }
    const seconds = (performance.now() - started) / 1000;
    const admitted = statuses.filter((status) => status === 503).length;
    expect(admitted + statuses.filter((status) => status === 429).length).toBe(20);
    // A burst of 1, then one a second, however long the flood took.
    expect(admitted).toBeGreaterThanOrEqual(1);
    expect(admitted).toBeLessThanOrEqual(1 + Math.ceil(seconds));
    // None reached the platform: none counts in the day quota.
    expect(await spentToday('runner')).toBe(0);
  });

  it('gives back what a request took whose secret could not be read, and one whose deadline came before the send', async () => {
    const reader = caller('reader', ['jobs:read'], { dayQuotaRequest: 3 });
    const listing = () =>
      httpEvent('jobs-list.json', { query: 'page=1&limit=10', headers: as('reader') });
    // No signing keys: the list cannot sign its call.
    const unsigned = await load([reader], { iam: undefined });
    const refused = await unsigned.list(listing(), lambdaContext());
    expect([refused.statusCode, (jsonBody(refused) as ErrorBody).error.errorCode]).toEqual([
      500,
      '900',
    ]);
    expect(await unsigned.spentToday('reader')).toBe(0);
    // 200 ms left: less than the upstream client keeps back, so no call is started.
    const signed = await load([reader]);
    const late = await signed.list(listing(), lambdaContext(200));
    expect(late.statusCode).toBe(504);
    expect(await signed.spentToday('reader')).toBe(0);
  });

  it('spends, of 60 requests at once on a busy machine against a quota of 20, exactly as many units as calls that reached the platform, and answers each within its time', {
    timeout: 120_000,
  }, async () => {
    // Every request the emulator receives (its head read), one whose caller then gave up on it
    // included: the recorded list keeps only those whose body was read.
    const receivedBefore = emulator.received();
    captureLogLines();
    const reader = caller('reader', ['jobs:read'], { dayQuotaRequest: 20 });
    const { spentToday } = await load([reader]);
    // The handler itself, as loaded: the answers' check against the document (loadHandlers)
    // would add its own time after each answer.
    const { handler: list } = (await import('../../functions/jobs/list.ts')) as {
      handler: (event: unknown, context: unknown) => Promise<Result>;
    };
    // One request first, with time to spare, so that the burst meets a loaded module and an
    // open connection (it counts like the others: one unit, one call).
    const warm = await list(
      httpEvent('jobs-list.json', { query: 'page=1&limit=10', headers: as('reader') }),
      lambdaContext(5000),
    );
    expect(warm.statusCode).toBe(200);
    // The platform answers some at once and others late, and each request has its own time
    // left, as on a busy machine: some so little that the deadline comes during the admission
    // or before the send (the upstream client starts no call with less than 250 ms), some
    // during the call, some not at all.
    // The emulator delays a request by the sum of the latency faults it matches and uses up one
    // application of each: a ladder of ten faults of 140 ms (the k-th for the first k + 1
    // requests to arrive) delays the first ten to arrive 1,400 ms down to 140, and the others
    // not at all.
    for (let k = 0; k < 10; k++) {
      const match = { pathPrefix: '/api/v1/jobs' };
      emulator.faults.add({ kind: 'latency', ms: 140, match, times: k + 1 });
    }
    // How late the event loop itself runs meanwhile: an answer cannot come before its timer
    // does.
    let loopLate = 0;
    let expected = Date.now() + 10;
    const watch = setInterval(() => {
      loopLate = Math.max(loopLate, Date.now() - expected);
      expected = Date.now() + 10;
    }, 10);
    try {
      const sent = Array.from({ length: 60 }, (_, i) => {
        const remainingMs = i % 4 === 0 ? 100 + i : 400 + ((i * 53) % 1200);
        const deadline = Date.now() + remainingMs;
        return list(
          httpEvent('jobs-list.json', { query: 'page=1&limit=10', headers: as('reader') }),
          lambdaContext(remainingMs),
        ).then((result) => ({ result, late: Date.now() - deadline }));
      });
      const answers = await Promise.all(sent);
      const statuses = answers.map(({ result }) => result.statusCode);
      expect(statuses.every((status) => [200, 429, 504].includes(status ?? 0))).toBe(true);
      // The case has both: calls answered, and deadlines that came first.
      expect(statuses).toContain(200);
      expect(statuses).toContain(504);
      // Every answer is the function's own, by its deadline (no later than the loop ran late).
      for (const { late } of answers) expect(late).toBeLessThanOrEqual(loopLate);
    } finally {
      clearInterval(watch);
    }
    const spent = await spentToday('reader');
    expect(spent).toBeLessThanOrEqual(20);
    // A call counts once its request is written on its connection; the emulator, busy in this
    // same process, may read it only after every answer is in.
    const reached = () => emulator.received() - receivedBefore;
    await vi.waitFor(() => expect(reached()).toBe(spent), { timeout: 10_000, interval: 50 });
  });
});

describe('cancel-reserved counts what it sends', () => {
  let emulator: Awaited<ReturnType<typeof startTestEmulator>>;
  beforeAll(async () => {
    emulator = await startTestEmulator({
      scanJobs: () => syntheticScanJobs({ count: 1000, reserved: 200 }),
    });
  });
  afterAll(() => emulator.close());

  async function load(plan: unknown, accountPlan?: unknown) {
    emulator.reset();
    const secret = {
      ...demoSecretFor(emulator.url),
      callers: [caller('ops', ['jobs:cancel-reserved', 'jobs:read'], plan)],
      ...(accountPlan ? { accountPlan } : {}),
    };
    const handlers = await loadHandlers(
      emulatorEnv(emulator, {
        SECRETS_FILE: await secretFile(secret),
        USAGE_TABLE: await newUsageTable(),
      }),
      { cancelReserved: 'functions/jobs/cancel-reserved.ts', usage: 'functions/usage.ts' },
    );
    const cancel = async (body: Record<string, unknown> = {}) => {
      const result = await handlers.cancelReserved(
        httpEvent('jobs-cancel-reserved.json', {
          body: JSON.stringify({ searchType: 'url', searchKeyword: 'load.example.com', ...body }),
          headers: as('ops'),
        }),
        lambdaContext(25_000),
      );
      return result;
    };
    const usage = async () =>
      jsonBody(
        await handlers.usage(httpEvent('usage.json', { headers: as('ops') }), lambdaContext()),
      ) as {
        caller: { day: { requests: number } };
        account: { day: { requests: number } } | null;
      };
    const sent = () => emulator.requests.filter((r) => r.url.startsWith('/api/v1/jobs')).length;
    return { cancel, usage, sent };
  }

  it('takes a unit for each page read of a dry run, and for each page read and cancel of a run', async () => {
    const { cancel, usage, sent } = await load(
      { rateRps: 200, dayQuotaRequest: 10_000 },
      {
        dayQuotaRequest: 100_000,
      },
    );
    const dry = await cancel({ dryRun: true });
    expect(dry.statusCode).toBe(200);
    // 1,000 jobs: 10 pages of 100.
    expect((await usage()).caller.day.requests).toBe(10);
    const run = await cancel();
    expect(run.statusCode).toBe(200);
    expect(jsonBody(run)).toMatchObject({ complete: true, remaining: [] });
    const counted = await usage();
    expect(counted.caller.day.requests).toBe(10 + 10 + 200);
    expect(counted.caller.day.requests).toBe(sent());
    expect(counted.account?.day.requests).toBe(sent());
    expect(header(run, 'ratelimit-policy')).toContain('"caller-day";q=10000');
  });

  it('stops when the day quota runs out midway, and answers what is left in remaining', async () => {
    const { cancel, usage, sent } = await load({ rateRps: 200, dayQuotaRequest: 110 });
    const run = await cancel();
    expect(run.statusCode).toBe(200);
    const answer = jsonBody(run) as { cancelled: string[]; remaining: string[]; complete: boolean };
    // 10 page reads, then 100 cancels: the quota's 110.
    expect(answer.cancelled).toHaveLength(100);
    expect(answer.remaining).toHaveLength(100);
    expect(answer.complete).toBe(false);
    expect((await usage()).caller.day.requests).toBe(110);
    expect(sent()).toBe(110);
    expect(header(run, 'ratelimit')).toContain('"caller-day";r=0;');
    // The next call finds the quota spent before it reads a page.
    const next = await cancel();
    expect([next.statusCode, (jsonBody(next) as ErrorBody).error.errorCode]).toEqual([429, '400']);
    expect(sent()).toBe(110);
  });
});
