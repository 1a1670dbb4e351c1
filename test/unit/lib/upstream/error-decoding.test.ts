import { describe, expect, it } from 'vitest';
import { UpstreamError } from '../../../../lib/core/errors.ts';
import { decodeUpstreamError } from '../../../../lib/upstream/error-decoding.ts';

const decode = (status: number, body: string) => decodeUpstreamError({ status, body });

describe('decodeUpstreamError', () => {
  it.each([
    {
      shape: 'gateway JSON envelope',
      status: 401,
      body: '{"error":{"errorCode":"200","message":"Authentication Failed"}}',
      code: '200',
      message: 'Authentication Failed',
    },
    {
      shape: 'gateway JSON envelope with details',
      status: 404,
      body: '{"error":{"errorCode":"300","message":"Not Found Exception","details":"URL not found."}}',
      code: '300',
      message: 'Not Found Exception',
      details: 'URL not found.',
    },
    {
      shape: 'numeric errorCode (scan job API)',
      status: 400,
      body: '{"error":{"errorCode":901,"message":"API Call Fail"}}',
      code: '901',
      message: 'API Call Fail',
    },
    {
      shape: 'numeric code with a non-English message',
      status: 401,
      body: '{"error":{"errorCode":401,"message":"요청한 API는 이 Application에서 활성화되어 있지 않습니다."}}',
      code: '401',
      message: '요청한 API는 이 Application에서 활성화되어 있지 않습니다.',
    },
    {
      shape: 'Papago legacy shape',
      status: 400,
      body: '{"errorMessage":"source and target must be different","errorCode":"N2MT05"}',
      code: 'N2MT05',
      message: 'source and target must be different',
    },
    {
      shape: 'CAPTCHA error inside a result object',
      status: 400,
      body: '{"result":false,"errorMessage":"Invalid key.","errorCode":"CT001"}',
      code: 'CT001',
      message: 'Invalid key.',
    },
    {
      shape: 'reverse geocoding status object',
      status: 400,
      body: '{"status":{"code":100,"name":"invalid request","message":"invalid request"}}',
      code: '100',
      message: 'invalid request',
    },
    {
      shape: 'geocoding status word',
      status: 400,
      body: '{"status":"INVALID_REQUEST","errorMessage":"query is INVALID"}',
      code: 'INVALID_REQUEST',
      message: 'query is INVALID',
    },
    {
      shape: 'XML under <result>',
      status: 429,
      body: '<?xml version="1.0" encoding="UTF-8"?><result><error><errorCode>410</errorCode><message>Throttle Limited</message></error></result>',
      code: '410',
      message: 'Throttle Limited',
    },
    {
      shape: 'XML under <Message> with entities',
      status: 401,
      body: '<Message><error><errorCode>200</errorCode><message>Auth &amp; Failed</message><details>Invalid authentication information.</details></error></Message>',
      code: '200',
      message: 'Auth & Failed',
      details: 'Invalid authentication information.',
    },
    {
      shape: 'XML under an unknown root',
      status: 503,
      body: '<whatever><error><errorCode>500</errorCode><message>Endpoint Error</message></error></whatever>',
      code: '500',
      message: 'Endpoint Error',
    },
    {
      shape: 'XML with a numeric code and members it does not read',
      status: 429,
      body: '<result><__proto__>x</__proto__><error><errorCode>420</errorCode><extra/><message>Rate Limited</message></error></result>',
      code: '420',
      message: 'Rate Limited',
    },
    {
      shape: 'XML declaring its own entities (never expanded)',
      status: 400,
      body: '<!DOCTYPE r [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;">]><r><error><errorCode>100</errorCode><message>&b;</message></error></r>',
      code: '100',
      message: '&b;',
    },
    {
      shape: 'XML with character references',
      status: 400,
      body: '<result><error><errorCode>100</errorCode><message>caf&#233; &#x1F600; &lt;b&gt;</message></error></result>',
      code: '100',
      message: 'café 😀 <b>',
    },
    {
      shape: 'XML cut short after a complete code',
      status: 500,
      body: '<result><error><errorCode>900</errorCode><message>Brok',
      code: '900',
      message: 'Internal Server Error',
    },
    {
      shape: 'XML cut short inside the code',
      status: 500,
      body: '<result><error><errorCode>9',
      code: '500',
      message: 'Internal Server Error',
    },
    {
      shape: 'malformed XML',
      status: 502,
      body: '<result><error><errorCode>500</errorCode></result>',
      code: '502',
      message: 'Bad Gateway',
    },
    { shape: 'empty body', status: 403, body: '', code: '403', message: 'Forbidden' },
    {
      shape: 'HTML error page',
      status: 502,
      body: '<html><body>Bad gateway</body></html>',
      code: '502',
      message: 'Bad Gateway',
    },
    {
      shape: 'plain text',
      status: 500,
      body: 'boom',
      code: '500',
      message: 'Internal Server Error',
    },
    {
      shape: 'truncated JSON',
      status: 500,
      body: '{"error":{"errorCo',
      code: '500',
      message: 'Internal Server Error',
    },
    { shape: 'JSON array', status: 400, body: '[1,2]', code: '400', message: 'Bad Request' },
    { shape: 'unknown status', status: 599, body: '', code: '599', message: 'Upstream Error' },
  ])('$shape', ({ status, body, code, message, details }) => {
    const error = decode(status, body);
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error.status).toBe(status);
    expect(error.code).toBe(code);
    expect(error.message).toBe(message);
    expect(error.details).toBe(details);
  });

  it('decodes bytes as UTF-8', () => {
    const bytes = new TextEncoder().encode('{"error":{"errorCode":"300","message":"없음"}}');
    expect(decodeUpstreamError({ status: 404, body: bytes }).message).toBe('없음');
  });

  it('bounds the text it keeps', () => {
    const long = 'x'.repeat(5000);
    expect(
      decode(400, JSON.stringify({ error: { errorCode: '100', message: long } })).message,
    ).toHaveLength(1000);
  });
});
