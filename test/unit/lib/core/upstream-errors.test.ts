/** What came of a call upstream: the platform's own error as it is, and whether a call may have gone out. */
import { describe, expect, it } from 'vitest';
import { UpstreamError, UpstreamUnreachableError } from '../../../../lib/core/upstream-errors.ts';

/** What a caller sees of an error: its status, errorCode and message. */
const seen = (error: UpstreamError) => [error.status, error.code, error.message];

describe('an upstream error', () => {
  it("passes an upstream error's own status, code and message on", () => {
    const error = new UpstreamError({ status: 403, code: '403', message: 'Forbidden' });
    expect(seen(error)).toEqual([403, '403', 'Forbidden']);
    expect(error.headers).toEqual({});
  });

  it("keeps the reason an upstream error was given (the scan job hints')", () => {
    const given = new UpstreamError({
      status: 400,
      code: '901',
      message: 'x',
      reason: 'upstream-901 cancel',
    });
    expect(given.reason).toBe('upstream-901 cancel');
  });

  it('says whether an unreachable upstream may have had the request: yes unless told no', () => {
    expect(new UpstreamUnreachableError().maybeSent).toBe(true);
    expect(new UpstreamUnreachableError(new Error('ECONNREFUSED'), false).maybeSent).toBe(false);
  });
});
