import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  CredentialsRefusedError,
  CredentialsUnavailableError,
  UpstreamError,
  UpstreamTimeoutError,
  UpstreamUnreachableError,
} from '../../../../lib/core/errors.ts';
import type { UpstreamAnswer } from '../../../../lib/upstream/client.ts';
import { outcomeOfAnswer, outcomeOfError } from '../../../../lib/webhooks/outcome.ts';

const answer = (status: number, headers: Record<string, string> = {}): UpstreamAnswer => ({
  status,
  headers,
  body: Buffer.from('{}'),
  attempts: 1,
});

describe('outcomeOfAnswer (the action answered)', () => {
  it('succeeded below 400, a 202 included (it runs on past the blocking wait)', () => {
    expect(outcomeOfAnswer(answer(200))).toEqual({ kind: 'succeeded', status: 200 });
    expect(outcomeOfAnswer(answer(202))).toEqual({ kind: 'succeeded', status: 202 });
    expect(outcomeOfAnswer(answer(302))).toEqual({ kind: 'succeeded', status: 302 });
  });

  it("is rejected, for good, on the action's own 4xx", () => {
    for (const status of [400, 404, 409, 422]) {
      expect(outcomeOfAnswer(answer(status))).toEqual({ kind: 'rejected', status });
    }
  });

  it('is busy on 408, 425 and 429, for as long as its Retry-After says, else 30 s', () => {
    expect(outcomeOfAnswer(answer(429, { 'retry-after': '7' }))).toEqual({
      kind: 'busy',
      status: 429,
      retryAfterSeconds: 7,
    });
    expect(outcomeOfAnswer(answer(408))).toMatchObject({ kind: 'busy', retryAfterSeconds: 30 });
    expect(outcomeOfAnswer(answer(425, { 'retry-after': 'soon' }))).toMatchObject({
      retryAfterSeconds: 30,
    });
  });

  it('takes a negative Retry-After as none: the default wait, not a date', () => {
    expect(outcomeOfAnswer(answer(429, { 'retry-after': '-1' }))).toMatchObject({
      kind: 'busy',
      retryAfterSeconds: 30,
    });
  });

  describe('with a Retry-After date', () => {
    afterEach(() => {
      vi.useRealTimers();
    });

    it('waits until that date, or not at all when it has passed', () => {
      vi.useFakeTimers({ now: Date.parse('2026-11-21T05:00:00Z') });
      expect(
        outcomeOfAnswer(answer(429, { 'retry-after': 'Sat, 21 Nov 2026 05:01:30 GMT' })),
      ).toMatchObject({ kind: 'busy', retryAfterSeconds: 90 });
      expect(
        outcomeOfAnswer(answer(429, { 'retry-after': 'Sat, 21 Nov 2026 04:00:00 GMT' })),
      ).toMatchObject({ retryAfterSeconds: 0 });
    });
  });

  it("failed on the action's own 5xx: it ran and failed", () => {
    expect(outcomeOfAnswer(answer(502))).toEqual({
      kind: 'failed',
      status: 502,
      reason: 'the action answered 502',
    });
  });
});

describe('outcomeOfError (the call failed)', () => {
  it('is unknown when no answer came before the deadline', () => {
    expect(outcomeOfError(new UpstreamTimeoutError())).toEqual({
      kind: 'unknown',
      reason: 'no answer before the deadline',
    });
  });

  it('is not-sent when the action could not be reached, unknown when the connection broke after sending', () => {
    const refused = new UpstreamUnreachableError(new Error('ECONNREFUSED'), false);
    const reset = new UpstreamUnreachableError(new Error('ECONNRESET'), true);
    expect(outcomeOfError(refused)).toEqual({
      kind: 'not-sent',
      reason: 'the action could not be reached',
    });
    expect(outcomeOfError(reset)).toEqual({
      kind: 'unknown',
      reason: 'the connection broke after the request was sent',
    });
  });

  it("reads the gateway's refusals: 401, 403, 429, 503 came before the action; other 5xx may not have; the rest is for good", () => {
    const gateway = (status: number, code: string) =>
      outcomeOfError(new UpstreamError({ status, code, message: 'm' }));
    for (const [status, code] of [
      [401, '200'],
      [403, '210'],
      [429, '400'],
      [503, '500'],
    ] as const) {
      expect(gateway(status, code)).toEqual({
        kind: 'not-sent',
        reason: `the gateway answered ${status} (${code})`,
      });
    }
    expect(gateway(504, '510').kind).toBe('unknown');
    expect(gateway(500, '900').kind).toBe('unknown');
    expect(gateway(502, '900').kind).toBe('unknown');
    for (const [status, code] of [
      [400, '100'],
      [404, '300'],
      [413, '430'],
    ] as const) {
      expect(gateway(status, code)).toEqual({
        kind: 'refused',
        reason: `the gateway answered ${status} (${code})`,
      });
    }
  });

  it("is not-sent when the gateway refused the action's API key (the operator's 500/900 to a caller)", () => {
    const refusal = new UpstreamError({
      status: 401,
      code: '200',
      message: 'Authentication Failed',
    });
    expect(
      outcomeOfError(new CredentialsRefusedError(refusal, 'the action "hello"\'s apiKey')),
    ).toEqual({
      kind: 'not-sent',
      reason: "the gateway refused the action's apiKey (401/200)",
    });
  });

  it('is not-sent while the platform credentials are not available yet', () => {
    expect(outcomeOfError(new CredentialsUnavailableError(5))).toMatchObject({ kind: 'not-sent' });
  });

  it('is unknown for anything else, named but not described', () => {
    expect(outcomeOfError(new TypeError('secret detail'))).toEqual({
      kind: 'unknown',
      reason: 'the call failed unexpectedly (TypeError)',
    });
    expect(outcomeOfError('thrown text')).toEqual({
      kind: 'unknown',
      reason: 'the call failed unexpectedly (error)',
    });
  });
});
