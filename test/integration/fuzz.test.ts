/**
 * Fuzzing every HTTP route through the real middy stack (fast-check): generated path
 * parameters, query strings, headers, bodies and methods, sent to the real handlers against the
 * embedded emulator. Whatever comes in:
 * - no 5xx unless the upstream was called (an upstream fault may be a 5xx; our own code never);
 * - every error this service produces is the uniform envelope (JSON or XML as negotiated);
 * - no stack trace, no secret value in any answer or log line.
 */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { demoSecretFor } from '../../emulator/index.ts';
import { routes } from '../../lib/http/routes/index.ts';
import { emulatorForSuite } from '../helpers/emulator.ts';
import { type HttpHandler, lambdaContext, sampleEvent } from '../helpers/lambda.ts';
import { DEMO_TOKEN, emulatorEnv, loadHandlers, secretFile } from '../helpers/platform.ts';
import { METHODS, MODULES, VALID } from '../helpers/route-requests.ts';

/**
 * Inputs per route: FUZZ_RUNS, else 100 (fast-check's own default), so that `npm test` stays
 * quick. `npm run test:fuzz` runs the full 1,000 per route (CI runs it once).
 */
const RUNS = positiveWholeNumber('FUZZ_RUNS', 100);

function positiveWholeNumber(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^[1-9][0-9]*$/.test(raw)) throw new Error(`${name} must be a positive whole number`);
  return Number(raw);
}

const TOKEN = DEMO_TOKEN;

/** Text that tends to break parsers: escapes, quotes, markup, control and non-ASCII characters. */
const nasty = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.constantFrom(
    '',
    '%',
    '%zz',
    '%E0%A4%A',
    '..',
    '../../etc',
    '<x>',
    '"',
    "'",
    '\u0000',
    ' ',
    '-1',
    '0',
    '1e309',
    'NaN',
    'true',
    'null',
  ),
  fc.integer().map(String),
);

/** A value for a known parameter: usually plausible, sometimes hostile. */
const paramValue = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      '1',
      '2',
      '10',
      'url',
      'memo',
      'ko',
      'en',
      'hello',
      'demo',
      'png',
      '127.1,37.3',
      'https://example.com/a',
    ),
  },
  { weight: 2, arbitrary: nasty },
);

function eventFor(
  route: (typeof routes)[number],
): fc.Arbitrary<APIGatewayProxyEventV2 & { readonly note: string }> {
  const names = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
  const methods = route.method === 'ANY' ? fc.constantFrom(...METHODS) : fc.constant(route.method);
  const pathParams = fc.record(Object.fromEntries(names.map((n) => [n, paramValue])));
  const queryKeys = fc.constantFrom(
    'page',
    'limit',
    'result',
    'lang',
    'w',
    'h',
    'center',
    'level',
    'key',
    'url',
    'query',
    'coords',
    'start',
    'goal',
    'mt',
    'pages',
    'x',
  );
  const query = fc.array(fc.tuple(fc.oneof(queryKeys, nasty), paramValue), { maxLength: 5 });
  const rawEscapes = fc.boolean();
  const body = fc.oneof(
    fc.constant(undefined),
    fc.jsonValue().map((v) => JSON.stringify(v)),
    fc.constantFrom(
      '0',
      'false',
      'null',
      '"x"',
      '[]',
      '{}',
      '{"searchType":"url","searchKeyword":"demo"}',
      '{"source":"ko","target":"en","text":"안녕"}',
      '{"key":"k","value":"v"}',
    ),
    nasty,
  );
  const contentType = fc.oneof(
    fc.constant(undefined),
    fc.constantFrom(
      'application/json',
      'Application/JSON; charset=UTF-8',
      'text/plain',
      'application/octet-stream',
      'application/xml',
      ';;;',
    ),
    nasty,
  );
  const accept = fc.oneof(
    fc.constant(undefined),
    fc.constantFrom('text/xml', 'application/json', '*/*'),
    nasty,
  );
  const auth = fc.oneof(
    { weight: 4, arbitrary: fc.constant(`Bearer ${TOKEN}`) },
    {
      weight: 1,
      arbitrary: fc.oneof(
        fc.constant(undefined),
        nasty.map((t) => `Bearer ${t}`),
        nasty,
      ),
    },
  );
  const webhookHeaders = fc.record({
    'webhook-id': fc.oneof(fc.constant(undefined), nasty),
    'webhook-timestamp': fc.oneof(
      fc.constant(undefined),
      fc.constant(String(Math.floor(Date.now() / 1000))),
      nasty,
    ),
    'webhook-signature': fc.oneof(fc.constant(undefined), fc.constant('v1,AAAA'), nasty),
  });
  const valid = VALID[`${route.method} ${route.path}`] ?? {};
  /** Mostly the valid part, sometimes a generated one: often one mutation at a time. */
  const mostly = <T>(good: T, generated: fc.Arbitrary<T>) =>
    fc.oneof({ weight: 3, arbitrary: fc.constant(good) }, { weight: 1, arbitrary: generated });
  return fc
    .record({
      method: valid.method ? mostly(valid.method, methods) : methods,
      pathParams: mostly(valid.path ?? {}, pathParams),
      query: mostly(valid.query ?? [], query),
      rawEscapes,
      body: mostly(valid.body, body),
      contentType: mostly(valid.contentType, contentType),
      accept,
      auth,
      webhookHeaders,
      base64: mostly(false, fc.boolean()),
    })
    .map((input) => {
      const event = sampleEvent('jobs-list.json');
      const params = input.pathParams as Record<string, string>;
      const path = route.path.replace(/\{(\w+)\}/g, (_m, n: string) =>
        encodeURIComponent(params[n] ?? ''),
      );
      event.routeKey = `${route.method} ${route.path}`;
      event.rawPath = path;
      event.requestContext.http.method = input.method;
      event.requestContext.http.path = path;
      event.pathParameters =
        names.length > 0 ? (input.pathParams as Record<string, string>) : (undefined as never);
      event.rawQueryString = input.query
        .map(([k, v]) =>
          input.rawEscapes ? `${k}=${v}` : `${encodeURIComponent(k)}=${encodeURIComponent(v)}`,
        )
        .join('&');
      const headers: Record<string, string> = {};
      const set = (name: string, value: string | undefined) => {
        if (value !== undefined) headers[name] = value;
      };
      set('authorization', input.auth);
      set('content-type', input.contentType);
      set('accept', input.accept);
      for (const [name, value] of Object.entries(input.webhookHeaders)) set(name, value);
      event.headers = headers;
      if (input.body === undefined) delete event.body;
      else {
        event.body = input.base64 ? Buffer.from(input.body).toString('base64') : input.body;
        event.isBase64Encoded = input.base64;
      }
      return Object.assign(event, { note: JSON.stringify(input).slice(0, 500) });
    });
}

describe('fuzzing every route through the real middy stack', () => {
  const emulator = emulatorForSuite();
  let handlers: Record<string, HttpHandler>;
  let secretValues: string[];
  const logLines: string[] = [];
  const counts = { inputs: 0, upstreamCalled: 0, errors: 0 };

  beforeAll(async () => {
    const secret = demoSecretFor(emulator.url) as Record<string, unknown>;
    secretValues = collectSecretValues(secret);
    const file = await secretFile(secret);
    vi.spyOn(console, 'log').mockImplementation((line: unknown) => {
      logLines.push(String(line));
    });
    handlers = await loadHandlers(
      emulatorEnv(emulator, { SECRETS_FILE: file, UPSTREAM_TIMEOUT_MS: '3000' }),
      MODULES,
    );
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    console.info(
      `fuzz: ${counts.inputs} inputs, ${counts.upstreamCalled} reached the upstream, ${counts.errors} errors`,
    );
  });

  it.each(routes.map((route) => [`${route.method} ${route.path}`, route] as const))(
    '%s',
    async (_name, route) => {
      const handler = handlers[route.function]!;
      const passesEndpointAnswers =
        route.function === 'invokeAction' || route.function === 'fireTrigger';
      await fc.assert(
        fc.asyncProperty(eventFor(route), async (event) => {
          // The emulator keeps its last 2,000 requests: start each input from an empty log.
          emulator.requests.length = 0;
          logLines.length = 0;
          const result = await handler(event, lambdaContext());
          const upstreamCalled = emulator.requests.length > 0;
          counts.inputs++;
          if (upstreamCalled) counts.upstreamCalled++;
          const status = result.statusCode ?? 0;
          const body = result.isBase64Encoded
            ? Buffer.from(result.body ?? '', 'base64').toString('utf8')
            : (result.body ?? '');
          const note = `${event.note} -> ${status} ${body.slice(0, 300)}`;
          if (status >= 500) expect(upstreamCalled, note).toBe(true);
          // Every answer tells the browser its type is the one sent (the stack puts it on
          // every answer: lib/http/responses.ts withAnswerHeaders).
          expect(headerOf(result, 'x-content-type-options'), note).toBe('nosniff');
          expect(body, note).not.toMatch(/\n\s+at |\bat .+\.(ts|js|cjs):\d+/);
          // One check each for the answer and the log (an expect per secret value cost a
          // tenth of the suite's time); a failure names neither the value nor which it was.
          const logs = logLines.join('\n');
          expect(
            secretValues.some((value) => body.includes(value)),
            note,
          ).toBe(false);
          expect(
            secretValues.some((value) => logs.includes(value)),
            note,
          ).toBe(false);
          if (status >= 400) {
            counts.errors++;
            if (passesEndpointAnswers && upstreamCalled) return;
            expectEnvelope(result.headers ?? {}, body, note);
          }
        }),
        { numRuns: RUNS, seed: Number(process.env.FUZZ_SEED ?? 20261123) },
      );
    },
    300_000,
  );
});

/** A header of an answer, whatever its case. */
function headerOf(result: { headers?: Record<string, unknown> }, name: string): unknown {
  const key = Object.keys(result.headers ?? {}).find((header) => header.toLowerCase() === name);
  return key === undefined ? undefined : result.headers?.[key];
}

function expectEnvelope(headers: Record<string, unknown>, body: string, note: string) {
  const contentType = String(headers['Content-Type'] ?? headers['content-type'] ?? '');
  if (contentType.startsWith('text/xml')) {
    expect(body, note).toMatch(
      /^<\?xml version="1\.0" encoding="UTF-8"\?><result><error><errorCode>[^<]+<\/errorCode><message>[^<]*<\/message>(<details>([^<]*|(<item><path>[^<]*<\/path><issue>[^<]*<\/issue><\/item>)+)<\/details>)?<\/error><\/result>$/,
    );
    // Only characters XML 1.0 allows (its Char production), whatever key names came.
    expect(body, note).not.toMatch(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u);
    return;
  }
  expect(contentType, note).toMatch(/^application\/json/);
  const parsed = JSON.parse(body) as { error?: Record<string, unknown> };
  expect(Object.keys(parsed), note).toEqual(['error']);
  expect(typeof parsed.error?.errorCode, note).toBe('string');
  expect(typeof parsed.error?.message, note).toBe('string');
  for (const key of Object.keys(parsed.error ?? {})) {
    expect(['errorCode', 'message', 'details'], note).toContain(key);
  }
}

/** Every credential in the secret: keys, client secret, API keys, webhook secrets. */
function collectSecretValues(secret: Record<string, unknown>): string[] {
  const values: string[] = [];
  const iam = secret.iam as { secretKey: string } | undefined;
  if (iam) values.push(iam.secretKey);
  if (typeof secret.apiKey === 'string') values.push(secret.apiKey);
  const openapi = secret.openapi as { clientSecret: string } | undefined;
  if (openapi) values.push(openapi.clientSecret);
  for (const group of ['actions', 'triggers'] as const) {
    for (const entry of Object.values(
      (secret[group] ?? {}) as Record<string, { apiKey?: string }>,
    )) {
      if (entry.apiKey) values.push(entry.apiKey);
    }
  }
  for (const hook of Object.values((secret.webhooks ?? {}) as Record<string, { secret: string }>)) {
    values.push(hook.secret, hook.secret.slice('whsec_'.length));
  }
  // The callers' tokens: the fuzz sends one of them on every request.
  for (const caller of (secret.callers ?? []) as { token: string }[]) values.push(caller.token);
  return values.filter((value) => value.length >= 8);
}
