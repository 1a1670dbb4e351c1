/**
 * The answers' headers a browser reads: nosniff on every answer, a CSP that lets nothing of a
 * passed-through body run, a report as an attachment.
 */
import { describe, expect, it } from 'vitest';
import {
  json,
  passThrough,
  reportResponse,
  withAnswerHeaders,
} from '../../../../lib/http/responses.js';
import type { UpstreamAnswer } from '../../../../lib/upstream/client.js';

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
