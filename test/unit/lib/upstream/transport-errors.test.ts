import { describe, expect, it } from 'vitest';
import {
  UnexpectedError,
  UpstreamResponseTooLargeError,
  UpstreamTimeoutError,
  UpstreamUnreachableError,
} from '../../../../lib/core/errors.ts';
import {
  callOutcomeOf,
  retryAfterMs,
  transportErrorOf,
} from '../../../../lib/upstream/transport-errors.ts';

/** An error as undici raises it: the system code on the error or on its cause. */
function coded(code: string, nested = false): Error {
  const inner = Object.assign(new Error(code), { code });
  return nested ? new TypeError('fetch failed', { cause: inner }) : inner;
}

const quiet = { expired: false, answered: false };

describe('transportErrorOf', () => {
  it('counts any error after the deadline passed as the deadline, whatever its code', () => {
    const result = transportErrorOf(coded('ECONNREFUSED'), { expired: true, answered: false });
    expect(result.failure).toBe('deadline');
    expect(result.error).toBeInstanceOf(UpstreamTimeoutError);
  });

  it.each(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT'])(
    'knows %s was raised before the request was sent, also on the cause',
    (code) => {
      for (const nested of [false, true]) {
        const result = transportErrorOf(coded(code, nested), quiet);
        expect(result.failure).toBe('not-sent');
        expect(result.error).toBeInstanceOf(UpstreamUnreachableError);
        expect((result.error as UpstreamUnreachableError).maybeSent).toBe(false);
      }
    },
  );

  it('treats a reset before the answer as maybe sent, and one during the body as sent', () => {
    expect(transportErrorOf(coded('ECONNRESET'), quiet).failure).toBe('before-answer');
    expect(transportErrorOf(coded('ECONNRESET'), { expired: false, answered: true }).failure).toBe(
      'during-body',
    );
    expect(
      transportErrorOf(coded('ECONNREFUSED'), { expired: false, answered: true }).failure,
    ).toBe('during-body');
  });

  it("counts undici's stall timers as the deadline", () => {
    for (const code of ['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']) {
      const result = transportErrorOf(coded(code), quiet);
      expect(result.failure).toBe('deadline');
      expect(result.error).toBeInstanceOf(UpstreamTimeoutError);
    }
  });

  it('keeps a body over the limit as too large', () => {
    const error = new UpstreamResponseTooLargeError(1024);
    expect(transportErrorOf(error, quiet)).toEqual({ error, failure: 'too-large' });
  });

  it('throws for a request undici refuses to send: our fault, not the upstream', () => {
    expect(() => transportErrorOf(coded('UND_ERR_INVALID_ARG'), quiet)).toThrow(UnexpectedError);
  });

  it('looks no deeper than three causes', () => {
    let error: Error = coded('ECONNREFUSED');
    for (let depth = 0; depth < 3; depth++) error = new Error('wrapped', { cause: error });
    expect(transportErrorOf(error, quiet).failure).toBe('before-answer');
  });
});

describe('retryAfterMs', () => {
  it('reads seconds and HTTP dates, and nothing else', () => {
    expect(retryAfterMs(undefined)).toBe(0);
    expect(retryAfterMs('')).toBe(0);
    expect(retryAfterMs('2')).toBe(2000);
    expect(retryAfterMs('-5')).toBe(0);
    expect(retryAfterMs('soon')).toBe(0);
    expect(retryAfterMs(new Date(Date.now() - 60_000).toUTCString())).toBe(0);
    const ahead = retryAfterMs(new Date(Date.now() + 60_000).toUTCString());
    expect(ahead).toBeGreaterThan(50_000);
    expect(ahead).toBeLessThanOrEqual(60_000);
  });
});

describe('callOutcomeOf', () => {
  it('names the outcome a failed call is counted under', () => {
    expect(callOutcomeOf(new UpstreamTimeoutError())).toBe('timeout');
    expect(callOutcomeOf(new UpstreamUnreachableError(new Error('x'), true))).toBe('unreachable');
    expect(callOutcomeOf(new UpstreamResponseTooLargeError(1024))).toBe('too-large');
    expect(callOutcomeOf(new Error('other'))).toBe('failed');
  });
});
