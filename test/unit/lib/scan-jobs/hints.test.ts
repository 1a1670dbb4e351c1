/** The usual causes a 901 of a scan job route carries (lib/scan-jobs/hints.ts). */
import { describe, expect, it } from 'vitest';
import { UpstreamError, UpstreamTimeoutError } from '../../../../lib/core/errors.ts';
import { usualCausesOf, withJobHint } from '../../../../lib/scan-jobs/hints.ts';

const refusal = (details?: string) =>
  new UpstreamError({
    status: 400,
    code: '901',
    message: 'API Call Fail',
    details,
    headers: { 'x-trace': 'a' },
  });

describe('the usual causes of a 901', () => {
  it.each([
    ['cancel', /unknown|no job has this instanceNo.*not in Reservation/],
    ['stop', /no job has this instanceNo.*not in Progress/],
    ['report', /no job has this instanceNo.*not Complete/],
    ['list', /limit over 100/],
    ['search', /limit over 100/],
  ] as const)('%s: names them', (operation, causes) => {
    const hinted = withJobHint(refusal(), operation) as UpstreamError;
    expect(hinted).toBeInstanceOf(UpstreamError);
    expect(hinted).toMatchObject({ status: 400, code: '901', message: 'API Call Fail' });
    expect(hinted.details).toBe(usualCausesOf(operation));
    expect(hinted.details).toMatch(causes);
    expect(hinted.headers).toEqual({ 'x-trace': 'a' });
  });

  it("keeps the platform's own details first", () => {
    const hinted = withJobHint(refusal('instanceNo not found'), 'cancel') as UpstreamError;
    expect(hinted.details).toBe(`instanceNo not found (${usualCausesOf('cancel')})`);
  });

  it('leaves any other failure alone', () => {
    const other = new UpstreamError({ status: 403, code: '210', message: 'Permission Denied' });
    expect(withJobHint(other, 'cancel')).toBe(other);
    const timeout = new UpstreamTimeoutError();
    expect(withJobHint(timeout, 'list')).toBe(timeout);
  });
});
