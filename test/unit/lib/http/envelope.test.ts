import { describe, expect, it } from 'vitest';
import {
  InputError,
  type InputIssue,
  MethodNotAllowedError,
  ServiceError,
} from '../../../../lib/core/errors.ts';
import { parseInput } from '../../../../lib/core/input-issues.ts';
import { encodeError, negotiateErrorFormat } from '../../../../lib/http/envelope.ts';
import { jobRoutes } from '../../../../lib/http/routes/jobs.ts';
import { decodeUpstreamError } from '../../../../lib/upstream/error-decoding.ts';

describe('negotiateErrorFormat', () => {
  it.each([
    [{}, 'json'],
    [{ accept: 'application/json' }, 'json'],
    [{ accept: 'text/xml' }, 'xml'],
    [{ accept: 'application/xml' }, 'xml'],
    [{ accept: 'text/xml;q=0.5, application/json' }, 'json'],
    [{ accept: 'application/json;q=0.2, text/xml' }, 'xml'],
    [{ accept: '*/*' }, 'json'],
    [{ 'content-type': 'application/xml' }, 'xml'],
    [{ 'content-type': 'application/xml; charset=utf-8' }, 'xml'],
    [{ 'content-type': 'application/xml', accept: 'application/json' }, 'xml'],
    [{ 'content-type': 'application/json' }, 'json'],
  ] as const)('%j -> %s', (headers, format) => {
    expect(negotiateErrorFormat(headers)).toBe(format);
  });
});

describe('encodeError', () => {
  it('says on every envelope, JSON or XML, that its type is the one sent', () => {
    for (const format of ['json', 'xml'] as const) {
      const encoded = encodeError(new MethodNotAllowedError(['POST']), format);
      expect(encoded.headers).toMatchObject({ 'X-Content-Type-Options': 'nosniff', Allow: 'POST' });
    }
  });

  it('writes the JSON envelope with details', () => {
    const encoded = encodeError(
      new InputError([{ path: 'query.page', issue: 'expected a positive integer' }]),
      'json',
    );
    expect(encoded.statusCode).toBe(400);
    expect(encoded.headers['Content-Type']).toBe('application/json');
    expect(JSON.parse(encoded.body)).toEqual({
      error: {
        errorCode: '100',
        message: 'Bad Request Exception',
        details: [{ path: 'query.page', issue: 'expected a positive integer' }],
      },
    });
  });

  it('omits details when there are none and keeps the code a string', () => {
    const encoded = encodeError(
      new ServiceError({ status: 400, code: '901', message: 'API Call Fail' }),
      'json',
    );
    expect(JSON.parse(encoded.body)).toEqual({
      error: { errorCode: '901', message: 'API Call Fail' },
    });
  });

  it('writes the XML envelope, escaped', () => {
    const encoded = encodeError(
      new ServiceError({ status: 401, code: '200', message: 'a <b> & "c"' }),
      'xml',
    );
    expect(encoded.headers['Content-Type']).toBe('text/xml');
    expect(encoded.body).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><result><error><errorCode>200</errorCode>' +
        '<message>a &lt;b&gt; &amp; &quot;c&quot;</message></error></result>',
    );
  });

  it('carries a text details in the XML envelope as in the JSON one, escaped', () => {
    const error = new ServiceError({
      status: 401,
      code: '200',
      message: 'Authentication Failed',
      details: 'Send "Authorization: Bearer <token>".',
    });
    expect(encodeError(error, 'xml').body).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><result><error><errorCode>200</errorCode>' +
        '<message>Authentication Failed</message>' +
        '<details>Send &quot;Authorization: Bearer &lt;token&gt;&quot;.</details></error></result>',
    );
    expect(JSON.parse(encodeError(error, 'json').body).error.details).toBe(
      'Send "Authorization: Bearer <token>".',
    );
  });

  it('writes one XML item per input issue, with its path and issue', () => {
    const encoded = encodeError(
      new InputError([
        { path: 'query.page', issue: 'expected a positive integer' },
        { path: 'body.text', issue: 'expected at most 5000 characters & no <tags>' },
      ]),
      'xml',
    );
    expect(encoded.body).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><result><error><errorCode>100</errorCode>' +
        '<message>Bad Request Exception</message><details>' +
        '<item><path>query.page</path><issue>expected a positive integer</issue></item>' +
        '<item><path>body.text</path><issue>expected at most 5000 characters &amp; no &lt;tags&gt;</issue></item>' +
        '</details></error></result>',
    );
  });

  it('replaces what XML 1.0 forbids in a reflected key name, so that the envelope parses', () => {
    const { issues } = parseInput('body', jobRoutes.searchJobs.input!.body!, {
      'a\u0001b\u0000c\u001f\ud800\uffff': 1,
    }) as { issues: InputIssue[] };
    const { body } = encodeError(new InputError(issues), 'xml');
    // XML 1.0's Char production: tab, LF, CR, and from U+0020 on, but surrogates, U+FFFE, U+FFFF.
    expect(body).not.toMatch(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u);
    expect(body).toContain('<path>body.a\uFFFDb\uFFFDc\uFFFD\uFFFD\uFFFD</path>');
    // JSON escapes them itself: the key comes back as sent.
    const json = JSON.parse(encodeError(new InputError(issues), 'json').body);
    expect(json.error.details[0].path).toBe('body.a\u0001b\u0000c\u001f\ud800\uffff');
  });

  it('keeps extra headers such as Allow', () => {
    const encoded = encodeError(new MethodNotAllowedError(['POST']), 'json');
    expect(encoded.statusCode).toBe(405);
    expect(encoded.headers.Allow).toBe('POST');
  });

  it('round-trips through the decoder, a text details included', () => {
    for (const format of ['json', 'xml'] as const) {
      const encoded = encodeError(
        new ServiceError({
          status: 429,
          code: '420',
          message: 'Rate Limited',
          details: "Over the caller plan's rateRps & burst.",
        }),
        format,
      );
      const decoded = decodeUpstreamError({ status: encoded.statusCode, body: encoded.body });
      expect([decoded.code, decoded.message, decoded.details]).toEqual([
        '420',
        'Rate Limited',
        "Over the caller plan's rateRps & burst.",
      ]);
    }
  });
});
