/**
 * The answers' headers a browser reads: nosniff on every answer, a CSP that lets nothing of a
 * passed-through body run, a report as an attachment.
 */
import { describe, expect, it } from 'vitest';
import { UpstreamResponseTooLargeError } from '../../../../lib/core/errors.ts';
import {
  fitsResponse,
  json,
  passThrough,
  readLimitOf,
  reportResponse,
  withAnswerHeaders,
} from '../../../../lib/http/responses.ts';
import type { UpstreamAnswer } from '../../../../lib/upstream/client.ts';
import { rulesOf } from '../../../../lib/usage/plan.ts';
import { rateLimitFields } from '../../../../lib/usage/rate-limit-headers.ts';
import { windowsOf } from '../../../../lib/usage/windows.ts';

const answer = (contentType: string | undefined, body: string, extra = {}): UpstreamAnswer => ({
  status: 200,
  headers: { ...(contentType ? { 'content-type': contentType } : {}), ...extra },
  body: Buffer.from(body),
  attempts: 1,
});

describe('the headers of an answer', () => {
  it('puts nosniff on a JSON answer of the service', () => {
    expect(json(202, { accepted: true }).headers).toEqual({
      'content-type': 'application/json',
      'x-content-type-options': 'nosniff',
    });
  });

  it("puts nosniff and a CSP of default-src 'none' on a passed-through body, over the upstream's own", () => {
    const html = answer('text/html', '<script>alert(1)</script>', {
      'content-security-policy': "script-src 'unsafe-inline'",
      'x-content-type-options': 'sniff',
    });
    const response = passThrough(html, 200, ['content-security-policy', 'x-content-type-options']);
    expect(response.headers).toEqual({
      'content-type': 'text/html',
      'x-content-type-options': 'nosniff',
      'content-security-policy': "default-src 'none'",
    });
    expect(response.body).toBe('<script>alert(1)</script>');
  });

  it('adds nosniff to any answer once, whatever the case of a header it has', () => {
    const bare = { statusCode: 200, headers: { 'content-type': 'application/json' }, body: '{}' };
    expect(withAnswerHeaders(bare).headers).toEqual({
      'content-type': 'application/json',
      'x-content-type-options': 'nosniff',
    });
    const envelope = { statusCode: 400, headers: { 'X-Content-Type-Options': 'nosniff' } };
    expect(withAnswerHeaders(envelope)).toBe(envelope);
    expect(withAnswerHeaders({ statusCode: 204 }).headers).toEqual({
      'x-content-type-options': 'nosniff',
    });
  });
});

describe('reportResponse', () => {
  it('passes the report through byte for byte, as an attachment named after the job', () => {
    const body = '{"Memo":"사용 안 함"}';
    const response = reportResponse(answer('application/json;charset=UTF-8', body), '2810001');
    expect(response.statusCode).toBe(200);
    expect(response.body).toBe(body);
    expect(response.headers).toEqual({
      'content-type': 'application/json;charset=UTF-8',
      'content-disposition': 'attachment; filename="report-2810001.json"',
      'x-content-type-options': 'nosniff',
      'content-security-policy': "default-src 'none'",
    });
  });

  it.each([
    ['text/html; charset=UTF-8', 'report-7.html'],
    ['application/pdf', 'report-7.pdf'],
    ['application/x-unknown', 'report-7'],
    [undefined, 'report-7'],
  ])('names a %s report %s', (contentType, filename) => {
    expect(reportResponse(answer(contentType, 'x'), '7').headers?.['content-disposition']).toBe(
      `attachment; filename="${filename}"`,
    );
  });
});

/**
 * Lambda's ceiling, to the byte: its runtime refuses a response whose JSON is over 6 MiB and 100
 * bytes ("Exceeded maximum allowed payload size (6291556 bytes)").
 */
const LAMBDA_LIMIT = 6_291_556;

/** The largest n for which `fits(n)` holds, fits being true at `low` and false at `high`. */
function largest(fits: (n: number) => boolean, low: number, high: number): number {
  let [yes, no] = [low, high];
  while (no - yes > 1) {
    const middle = Math.floor((yes + no) / 2);
    if (fits(middle)) yes = middle;
    else no = middle;
  }
  return yes;
}

/** The largest RateLimit fields the stack adds: both plans, every limit, 15-digit numbers. */
function largestRateLimitFields(): Record<string, string> {
  const most = 999_999_999_999_999;
  const plan = {
    rateRps: most,
    burst: most,
    dayQuotaRequest: most,
    monthQuotaRequest: most,
    dayQuotaCharacters: { translate: most, tts: most },
    monthQuotaCharacters: { translate: most, tts: most },
  };
  const nowMs = Date.UTC(2026, 0, 1);
  const counts = { requests: 1, translate: most, tts: most };
  const view = { rules: rulesOf(plan), state: undefined, counts, nowMs, windows: windowsOf(nowMs) };
  return rateLimitFields([
    { holder: 'caller', ...view },
    { holder: 'account', ...view },
  ]);
}

describe("Lambda's response limit", () => {
  const answerOf = (contentType: string, body: Buffer): UpstreamAnswer => ({
    status: 200,
    headers: { 'content-type': contentType, 'x-openwhisk-activation-id': 'a'.repeat(32) },
    body,
    attempts: 1,
  });
  /** The whole response as Lambda's runtime serializes it, every header the stack adds in. */
  const serialized = (answer: UpstreamAnswer) => {
    const response = reportResponse(answer, '9'.repeat(40));
    const withKept = passThrough(answer, 200, ['x-openwhisk-activation-id']);
    const headers = { ...withKept.headers, ...response.headers, ...largestRateLimitFields() };
    return Buffer.byteLength(JSON.stringify(withAnswerHeaders({ ...response, headers })), 'utf8');
  };

  it('returns the largest text it takes with every header the stack adds, within the limit', () => {
    const text = (n: number) => answerOf('application/json', Buffer.alloc(n, 'a'));
    const most = largest((n) => fitsResponse(text(n)), 1, 6.5 * 1024 * 1024);

    expect(most).toBeLessThanOrEqual(readLimitOf(text(0)));
    expect(serialized(text(most))).toBeLessThanOrEqual(LAMBDA_LIMIT);
    // Not far under it: the room kept for headers is what they take, and a little more.
    expect(LAMBDA_LIMIT - serialized(text(most))).toBeLessThan(4096);
    // 5.9 MB of JSON goes back as it is; 6.1 MB does not.
    expect(fitsResponse(text(Math.round(5.9 * 1024 * 1024)))).toBe(true);
    expect(fitsResponse(text(Math.round(6.1 * 1024 * 1024)))).toBe(false);
  });

  it('returns the largest bytes it takes in base64, within the limit: a quarter less than text', () => {
    const binary = (n: number) => answerOf('audio/wav', Buffer.alloc(n, 1));
    const most = largest((n) => fitsResponse(binary(n)), 1, 5 * 1024 * 1024);

    expect(most).toBeLessThanOrEqual(readLimitOf(binary(0)));
    expect(readLimitOf(binary(0)) - most).toBeLessThan(512);
    expect(serialized(binary(most))).toBeLessThanOrEqual(LAMBDA_LIMIT);
    expect(Math.round(most / 1024)).toBe(4605);
  });

  it('measures escaped text: control characters take six bytes each', () => {
    const escaped = answerOf('text/plain', Buffer.alloc(1024 * 1024 + 512 * 1024, 1));
    expect(fitsResponse(escaped)).toBe(false);
    expect(() => passThrough(escaped)).toThrow(UpstreamResponseTooLargeError);
  });

  it('keeps room for every RateLimit field the stack adds after the handler', () => {
    const fields = largestRateLimitFields();
    expect(Object.keys(fields)).toEqual(['RateLimit-Policy', 'RateLimit']);
    expect(JSON.stringify(fields).length).toBeLessThan(2048);
  });
});
