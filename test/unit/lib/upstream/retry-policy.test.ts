import { describe, expect, it } from 'vitest';
import { identifyAnswer } from '../../../../lib/upstream/answer-origin.ts';
import {
  type AttemptOutcome,
  backoffMs,
  isThrottled,
  mayRetry,
  RETRY_RULES,
  retryCauseOf,
  ruleFor,
  type TransportFailure,
} from '../../../../lib/upstream/retry-policy.ts';

const STATUSES = [200, 201, 202, 204, 400, 401, 403, 404, 413, 429, 500, 502, 503, 504];
const CODES = [undefined, '100', '200', '400', '410', '420', '430', '500', '510', '900'];
type HeaderCase = 'APIGW' | 'ENDPOINT' | 'none';
const HEADERS: HeaderCase[] = ['APIGW', 'ENDPOINT', 'none'];
/** The body either is the gateway's exact envelope (with the code) or something else. */
const BODIES = ['envelope', 'other'] as const;
const TRANSPORT: TransportFailure[] = [
  'not-sent',
  'before-answer',
  'during-body',
  'deadline',
  'too-large',
];
const GATEWAY_STATUS: Record<string, number> = {
  '100': 400,
  '200': 401,
  '210': 401,
  '300': 404,
  '400': 429,
  '410': 429,
  '420': 429,
  '430': 413,
  '500': 503,
  '510': 504,
  '900': 500,
};

/**
 * The rules, stated again independently of the table: what may be repeated is what cannot have
 * reached the endpoint (refused, or throttled by the gateway itself), or what is safe to repeat.
 */
function expected(
  status: number,
  code: string | undefined,
  header: HeaderCase,
  body: (typeof BODIES)[number],
  idempotent: boolean,
): boolean {
  const envelope = body === 'envelope' && code !== undefined;
  const throttled = status === 429 && (code === '410' || code === '420') && envelope;
  if (throttled) {
    if (header === 'APIGW') return true;
    if (header === 'none') return idempotent && GATEWAY_STATUS[code] === status;
    return false;
  }
  if (status === 503 || status === 504) return idempotent;
  return false;
}

function bodyOf(code: string | undefined, body: (typeof BODIES)[number]): Buffer {
  if (body === 'envelope' && code !== undefined) {
    return Buffer.from(JSON.stringify({ error: { errorCode: code, message: 'm' } }));
  }
  return Buffer.from(code === undefined ? '' : `{"errorCode":"${code}","errorMessage":"api"}`);
}

describe('the retry table', () => {
  it('decides every answer as the rules say (status x code x origin x idempotent)', () => {
    let cases = 0;
    for (const status of STATUSES)
      for (const code of CODES)
        for (const header of HEADERS)
          for (const body of BODIES)
            for (const idempotent of [true, false]) {
              const headers: Record<string, string> =
                header === 'none' ? {} : { 'x-platform-apigw-response-origin': header };
              const identity = identifyAnswer(status, headers, bodyOf(code, body), 'platform');
              const outcome: AttemptOutcome = { kind: 'answer', status, ...identity };
              const verdict = mayRetry(outcome, idempotent);
              const want = expected(status, code, header, body, idempotent);
              if (verdict !== want) {
                throw new Error(
                  `status ${status} code ${code} origin ${header} body ${body} idempotent ${idempotent}: ` +
                    `expected ${want}, table says ${verdict} (${ruleFor(outcome).why})`,
                );
              }
              cases++;
            }
    expect(cases).toBe(STATUSES.length * CODES.length * HEADERS.length * BODIES.length * 2);
  });

  it('decides every transport failure as the rules say', () => {
    const want: Record<TransportFailure, [boolean, boolean]> = {
      // [idempotent, not idempotent]
      'not-sent': [true, true],
      'before-answer': [true, false],
      'during-body': [true, false],
      deadline: [false, false],
      'too-large': [false, false],
    };
    for (const failure of TRANSPORT) {
      const outcome: AttemptOutcome = { kind: 'transport', failure };
      expect([mayRetry(outcome, true), mayRetry(outcome, false)], failure).toEqual(want[failure]);
    }
  });

  it('never repeats a request that is not idempotent once it may have reached the endpoint', () => {
    for (const status of STATUSES)
      for (const code of CODES)
        for (const origin of ['endpoint', 'gateway-shaped'] as const) {
          expect(mayRetry({ kind: 'answer', status, errorCode: code, origin }, false)).toBe(false);
        }
    for (const failure of ['before-answer', 'during-body'] as const) {
      expect(mayRetry({ kind: 'transport', failure }, false)).toBe(false);
    }
  });

  it('gives every row a reason, and ends with a row that matches any answer', () => {
    for (const rule of RETRY_RULES) expect(rule.why.length).toBeGreaterThan(0);
    const last = RETRY_RULES[RETRY_RULES.length - 1];
    expect(last).toMatchObject({ verdict: 'never' });
    expect(last?.status).toBeUndefined();
    expect(last?.transport).toBeUndefined();
  });
});

describe('isThrottled', () => {
  it('is the gateway throttling 429 410/420, from the gateway or shaped like it, nothing else', () => {
    for (const status of STATUSES)
      for (const code of CODES)
        for (const origin of ['gateway', 'gateway-shaped', 'endpoint'] as const) {
          const expected =
            status === 429 && (code === '410' || code === '420') && origin !== 'endpoint';
          expect(isThrottled({ kind: 'answer', status, errorCode: code, origin })).toBe(expected);
        }
    for (const failure of TRANSPORT)
      expect(isThrottled({ kind: 'transport', failure })).toBe(false);
  });
});

describe('the wait before a retry', () => {
  const settings = { maxAttempts: 4, baseDelayMs: 100, maxDelayMs: 2000 };

  it('is full jitter under a ceiling that doubles with each attempt, up to its most', () => {
    expect([1, 2, 3].map((attempt) => backoffMs(settings, attempt, 1, 0))).toEqual([100, 200, 400]);
    expect(backoffMs(settings, 10, 1, 0)).toBe(2000);
    expect(backoffMs(settings, 3, 0.5, 0)).toBe(200);
    expect(backoffMs(settings, 3, 0, 0)).toBe(0);
  });

  it("is never shorter than the upstream's Retry-After", () => {
    expect(backoffMs(settings, 1, 1, 5000)).toBe(5000);
  });

  it('costs more of the retry budget after a timeout than after another failure', () => {
    expect(retryCauseOf({ kind: 'transport', failure: 'deadline' })).toBe('timeout');
    expect(retryCauseOf({ kind: 'transport', failure: 'not-sent' })).toBe('error');
    expect(retryCauseOf({ kind: 'answer', status: 503, origin: 'gateway' })).toBe('error');
  });
});
