/**
 * The fault suite: every fault class the emulator can inject, against each kind of route (a
 * list, a PATCH, an action, a trigger, a catalogue POST, a catalogue binary GET), through the
 * real handlers over loopback. Each case asserts the answer, the number of upstream attempts
 * (the emulator's request log), and that nothing with a side effect ran twice (its activation
 * log, and the request count of calls that are not idempotent).
 */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Fault } from '../../emulator/core/faults.ts';
import { demoSecretFor, type Emulator } from '../../emulator/index.ts';
import { startTestEmulator } from '../helpers/emulator.ts';
import { type HttpHandler, httpEvent, lambdaContext } from '../helpers/lambda.ts';
import { emulatorEnv, loadHandlers, secretFile } from '../helpers/platform.ts';

/**
 * The functions' upstream deadline (UPSTREAM_TIMEOUT_MS) in the cases that must not reach it:
 * far beyond anything they wait for (a slow answer, four attempts with their backoff, 6 MB read
 * over loopback), so that no load on the machine can make them reach it. No case asserts how long
 * anything took: only the answer and the attempts.
 */
const DEADLINE_MS = 5000;
/**
 * The deadline of the cases that only the deadline can end: an answer held back until the
 * emulator is reset, or dripping in, a few bytes per deadline. All it must leave is the time for
 * the request to reach the emulator (which counts it on arrival), a loopback call that takes a
 * few milliseconds.
 */
const SHORT_DEADLINE_MS = 1000;
const DRIP_INTERVAL_MS = 150;
/** An answer as late as the short deadline, inside the long one: the deadline decides, not the delay. */
const SLOW_ANSWER_MS = SHORT_DEADLINE_MS;
/** Held longer than any case runs; the emulator's reset before the next case drops it. */
const HELD_MS = 10 * 60 * 1000;
const MB = 1024 * 1024;

interface RouteKind {
  readonly name: string;
  readonly module: string;
  readonly event: () => APIGatewayProxyEventV2;
  /** Where its calls land on the emulator. */
  readonly upstreamPath: string;
  readonly idempotent: boolean;
  /** An endpoint's own answer is the caller's answer (actions and triggers). */
  readonly passesEndpointAnswers: boolean;
  readonly successStatus: number;
  /** Runs of its side effect, when the emulator can count them. */
  readonly runs?: (emulator: Emulator) => number;
}

const activationsOf = (emulator: Emulator, kind: 'action' | 'trigger', name: string) =>
  emulator.actions.activations().filter((a) => a.kind === kind && a.name === name).length;

const KINDS: RouteKind[] = [
  {
    name: 'GET /jobs (list)',
    module: 'functions/jobs/list.ts',
    event: () => httpEvent('jobs-list.json'),
    upstreamPath: '/api/v1/jobs',
    idempotent: true,
    passesEndpointAnswers: false,
    successStatus: 200,
  },
  {
    name: 'PATCH /jobs/{id}/cancel',
    module: 'functions/jobs/cancel.ts',
    event: () => httpEvent('jobs-cancel.json'),
    upstreamPath: '/api/v1/jobs/2810017/cancel',
    idempotent: false,
    passesEndpointAnswers: false,
    successStatus: 200,
  },
  {
    name: 'POST /actions/hello',
    module: 'functions/actions/invoke.ts',
    event: () => httpEvent('actions-invoke.json'),
    upstreamPath: '/fx7h2k/demo/hello',
    idempotent: false,
    passesEndpointAnswers: true,
    successStatus: 200,
    runs: (emulator) => activationsOf(emulator, 'action', 'hello'),
  },
  {
    name: 'POST /triggers/nightly',
    module: 'functions/triggers/fire.ts',
    event: () => httpEvent('triggers-fire.json'),
    upstreamPath: '/fx7h2k/demo/nightly',
    idempotent: false,
    passesEndpointAnswers: true,
    successStatus: 202,
    runs: (emulator) => activationsOf(emulator, 'trigger', 'nightly'),
  },
  {
    name: 'POST /translate (catalogue)',
    module: 'functions/catalogue/language.ts',
    event: () => httpEvent('catalogue-language.json'),
    upstreamPath: '/nmt/v1/translation',
    idempotent: false,
    passesEndpointAnswers: false,
    successStatus: 200,
  },
  {
    name: 'GET /maps/static (catalogue, binary)',
    module: 'functions/catalogue/maps.ts',
    event: () =>
      httpEvent('catalogue-maps.json', {
        path: '/maps/static',
        query: 'w=64&h=64&center=127.1054,37.3595&level=12&format=png',
        routeKey: 'GET /maps/static',
      }),
    upstreamPath: '/map-static/v2/raster',
    idempotent: true,
    passesEndpointAnswers: false,
    successStatus: 200,
  },
];

/** What a case expects of one route kind. */
interface Expected {
  readonly status: number;
  /** The envelope's errorCode; undefined for a success or an endpoint answer passed through. */
  readonly code?: string;
  /** The body is the endpoint's, unchanged. */
  readonly passedThrough?: string;
  readonly attempts: number;
}

interface FaultCase {
  readonly name: string;
  /** The functions' upstream deadline in this case: DEADLINE_MS unless it says otherwise. */
  readonly deadlineMs?: number;
  readonly faults: (path: string) => Fault[];
  readonly expect: (kind: RouteKind) => Expected;
}

const match = (path: string) => ({ pathPrefix: path });
const success = (kind: RouteKind, attempts = 1): Expected => ({
  status: kind.successStatus,
  attempts,
});
const envelope = (status: number, code: string, attempts = 1): Expected => ({
  status,
  code,
  attempts,
});
const MALFORMED_JSON = '{"error":{"errorCode":';
const MALFORMED_XML = '<result><error><errorCode>9';

const CASES: FaultCase[] = [
  {
    name: 'reset before the headers, every time',
    faults: (path) => [{ kind: 'reset', match: match(path), times: 0 }],
    expect: (kind) => envelope(503, '500', kind.idempotent ? 4 : 1),
  },
  {
    name: 'reset after the headers, every time',
    faults: (path) => [{ kind: 'cut', match: match(path), times: 0 }],
    expect: (kind) => envelope(503, '500', kind.idempotent ? 4 : 1),
  },
  {
    name: `headers dripping in, a byte every ${DRIP_INTERVAL_MS} ms`,
    deadlineMs: SHORT_DEADLINE_MS,
    faults: (path) => [
      { kind: 'drip', part: 'headers', intervalMs: DRIP_INTERVAL_MS, match: match(path) },
    ],
    expect: () => envelope(504, '510'),
  },
  {
    name: `body dripping in, a byte every ${DRIP_INTERVAL_MS} ms`,
    deadlineMs: SHORT_DEADLINE_MS,
    faults: (path) => [
      { kind: 'drip', part: 'body', intervalMs: DRIP_INTERVAL_MS, match: match(path) },
    ],
    expect: () => envelope(504, '510'),
  },
  {
    name: `an answer ${SLOW_ANSWER_MS} ms late, inside the deadline`,
    faults: (path) => [{ kind: 'latency', ms: SLOW_ANSWER_MS, match: match(path) }],
    expect: (kind) => success(kind),
  },
  {
    name: 'an answer held back past the deadline',
    deadlineMs: SHORT_DEADLINE_MS,
    faults: (path) => [{ kind: 'latency', ms: HELD_MS, match: match(path) }],
    expect: () => envelope(504, '510'),
  },
  ...(['400', '410', '420'] as const).flatMap((code): FaultCase[] => [
    {
      name: `429/${code} from the gateway, once`,
      faults: (path) => [
        { kind: 'status', status: 429, errorCode: code, origin: 'APIGW', match: match(path) },
      ],
      // Throttled by the gateway (410, 420): the endpoint never saw it, so any call is repeated.
      expect: (kind) => (code === '400' ? envelope(429, '400') : success(kind, 2)),
    },
    {
      name: `429/${code} from the endpoint, once`,
      faults: (path) => [
        { kind: 'status', status: 429, errorCode: code, origin: 'ENDPOINT', match: match(path) },
      ],
      // The endpoint's own answer: never repeated; an action's is passed through.
      expect: (kind) =>
        kind.passesEndpointAnswers
          ? { status: 429, attempts: 1, passedThrough: `"errorCode":"${code}"` }
          : envelope(429, code),
    },
  ]),
  {
    name: '503 from the gateway, once',
    faults: (path) => [{ kind: 'status', status: 503, origin: 'APIGW', match: match(path) }],
    expect: (kind) => (kind.idempotent ? success(kind, 2) : envelope(503, '500')),
  },
  {
    name: '504 from the gateway, once',
    faults: (path) => [{ kind: 'status', status: 504, origin: 'APIGW', match: match(path) }],
    expect: (kind) => (kind.idempotent ? success(kind, 2) : envelope(504, '510')),
  },
  {
    name: 'a 7 MB success body',
    faults: (path) => [{ kind: 'oversize', bytes: 7 * MB, match: match(path) }],
    expect: () => envelope(502, '520'),
  },
  {
    name: 'a 50 MB success body',
    faults: (path) => [{ kind: 'oversize', bytes: 50 * MB, match: match(path) }],
    expect: () => envelope(502, '520'),
  },
  {
    name: 'a 50 MB XML error body',
    faults: (path) => [
      {
        kind: 'oversize',
        bytes: 50 * MB,
        status: 500,
        contentType: 'text/xml',
        head: '<result><error><errorCode>900</errorCode><message>Broken</message></error>',
        match: match(path),
      },
    ],
    // Decoded from its first 64 KB; an action's would be passed through, but cannot fit.
    expect: (kind) => (kind.passesEndpointAnswers ? envelope(502, '520') : envelope(500, '900')),
  },
  {
    name: 'a malformed JSON error body',
    faults: (path) => [
      { kind: 'status', status: 500, body: MALFORMED_JSON, origin: 'ENDPOINT', match: match(path) },
    ],
    expect: (kind) =>
      kind.passesEndpointAnswers
        ? { status: 500, attempts: 1, passedThrough: MALFORMED_JSON }
        : envelope(500, '500'),
  },
  {
    name: 'a malformed XML error body',
    faults: (path) => [
      {
        kind: 'status',
        status: 500,
        body: MALFORMED_XML,
        contentType: 'text/xml',
        origin: 'ENDPOINT',
        match: match(path),
      },
    ],
    expect: (kind) =>
      kind.passesEndpointAnswers
        ? { status: 500, attempts: 1, passedThrough: MALFORMED_XML }
        : envelope(500, '500'),
  },
];

function attemptsOn(emulator: Emulator, path: string): number {
  return emulator.requests.filter((r) => r.url.split('?')[0] === path).length;
}

function checkAnswer(
  result: Awaited<ReturnType<HttpHandler>>,
  expected: Expected,
  context: string,
) {
  expect(result.statusCode, context).toBe(expected.status);
  const body = result.isBase64Encoded
    ? Buffer.from(result.body ?? '', 'base64').toString('utf8')
    : (result.body ?? '');
  expect(body, context).not.toMatch(/\n\s+at |\bat .+:\d+:\d+/);
  if (expected.passedThrough !== undefined) {
    expect(body, context).toContain(expected.passedThrough);
  } else if (expected.code !== undefined) {
    const parsed = JSON.parse(body) as { error: Record<string, unknown> };
    expect(parsed.error.errorCode, context).toBe(expected.code);
    for (const key of Object.keys(parsed.error)) {
      expect(['errorCode', 'message', 'details'], context).toContain(key);
    }
  }
}

/** The deadlines of the cases: each kind has a lane of cases, an emulator and a container per deadline. */
const LANES = [DEADLINE_MS, SHORT_DEADLINE_MS].map((deadlineMs) => ({
  deadlineMs,
  cases: CASES.filter((faultCase) => (faultCase.deadlineMs ?? DEADLINE_MS) === deadlineMs),
}));

/**
 * Each kind of route, and each of its deadlines, on an emulator and in a container of its own, so
 * that the lanes run side by side (`concurrent`), each lane's cases one after another on its
 * emulator, reset before each: most cases wait on an answer held back or dripping in, not on the
 * machine, and no case of one lane can see another's faults, requests or activations (a list's
 * path is the prefix of a cancel's).
 */
describe('the fault suite: every fault class against every kind of route', () => {
  /** By kind and deadline: `${kind.name} ${deadlineMs}`. */
  const emulators = new Map<string, Emulator>();
  const handlers = new Map<string, HttpHandler>();
  const laneOf = (kind: RouteKind, deadlineMs: number) => `${kind.name} ${deadlineMs}`;

  beforeAll(async () => {
    // One after another: loading a container sets the environment it reads.
    for (const kind of KINDS) {
      for (const { deadlineMs } of LANES) {
        const emulator = await startTestEmulator();
        emulators.set(laneOf(kind, deadlineMs), emulator);
        const file = await secretFile(demoSecretFor(emulator.url));
        const { handler } = await loadHandlers(
          emulatorEnv(emulator, { SECRETS_FILE: file, UPSTREAM_TIMEOUT_MS: String(deadlineMs) }),
          { handler: kind.module },
        );
        handlers.set(laneOf(kind, deadlineMs), handler);
      }
    }
  });
  afterAll(async () => {
    await Promise.all([...emulators.values()].map((emulator) => emulator.close()));
  });

  describe.concurrent.each(KINDS)('$name', (kind) => {
    describe.concurrent.each(LANES)('deadline $deadlineMs ms', ({ deadlineMs, cases }) => {
      const emulatorOf = () => emulators.get(laneOf(kind, deadlineMs))!;
      beforeEach(() => {
        emulatorOf().reset();
      });

      it.each(cases)('$name', { concurrent: false }, async (faultCase) => {
        const emulator = emulatorOf();
        for (const fault of faultCase.faults(kind.upstreamPath)) emulator.faults.add(fault);
        const expected = faultCase.expect(kind);
        const context = `${kind.name}, ${faultCase.name}`;
        const handler = handlers.get(laneOf(kind, deadlineMs))!;
        const result = await handler(kind.event(), lambdaContext());
        checkAnswer(result, expected, context);
        expect(attemptsOn(emulator, kind.upstreamPath), context).toBe(expected.attempts);
        if (kind.runs) expect(kind.runs(emulator), context).toBeLessThanOrEqual(1);
      });
    });
  });
});

describe('the fault suite: an upstream that refuses connections', () => {
  it.each(KINDS)(
    '$name: 503/500, having tried only while nothing could have arrived',
    async (kind) => {
      const closed = 'http://127.0.0.1:1';
      const file = await secretFile(demoSecretFor(closed));
      const handler = (
        await loadHandlers(
          {
            ...emulatorEnv({ url: closed } as Emulator, { SECRETS_FILE: file }),
            UPSTREAM_TIMEOUT_MS: String(DEADLINE_MS),
          },
          { handler: kind.module },
        )
      ).handler;
      const result = await handler(kind.event(), lambdaContext());
      checkAnswer(result, envelope(503, '500'), kind.name);
    },
  );
});
