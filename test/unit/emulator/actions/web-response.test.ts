import { describe, expect, it } from 'vitest';
import { httpResponseOf, isBinaryMediaType } from '../../../../emulator/actions/web.js';

describe("a web action's result as HTTP (the .http transcoder)", () => {
  it('answers 204 with no body and no Content-Type when the result has no body', () => {
    expect(httpResponseOf({ headers: { 'Content-Type': 'text/plain', 'X-A': 1 } })).toEqual({
      status: 204,
      headers: { 'x-a': '1' },
      body: undefined,
      origin: 'ENDPOINT',
    });
  });

  it('defaults a string body to text/html with status 200', () => {
    expect(httpResponseOf({ body: '<p>hi</p>' })).toMatchObject({
      status: 200,
      headers: { 'content-type': 'text/html; charset=UTF-8' },
      body: '<p>hi</p>',
    });
  });

  it('serialises a JSON body as application/json', () => {
    expect(httpResponseOf({ statusCode: '201', body: { a: 1 } })).toMatchObject({
      status: 201,
      headers: { 'content-type': 'application/json' },
      body: '{"a":1}',
    });
  });

  it('drops framing headers the action sets', () => {
    const response = httpResponseOf({
      headers: { 'Content-Length': '999', 'Transfer-Encoding': 'chunked', 'X-Kept': 'yes' },
      body: 'x',
    });
    expect(response.headers).toEqual({
      'x-kept': 'yes',
      'content-type': 'text/html; charset=UTF-8',
    });
  });

  it('joins array header values', () => {
    const response = httpResponseOf({ headers: { 'Set-Cookie': ['a=1', 'b=2'] }, body: 'x' });
    expect(response.headers?.['set-cookie']).toBe('a=1, b=2');
  });

  it.each([
    ['a result that is not an object', 'text'],
    ['a status that is not a status', { statusCode: 'abc', body: 'x' }],
    ['a header that is not a value', { headers: { a: { b: 1 } }, body: 'x' }],
    [
      'a JSON body under a text Content-Type',
      { headers: { 'content-type': 'text/plain' }, body: { a: 1 } },
    ],
  ])('answers %s with OpenWhisk 400', (_case, result) => {
    const response = httpResponseOf(result);
    expect(response.status).toBe(400);
    expect(JSON.parse(String(response.body))).toMatchObject({ error: expect.any(String) });
  });

  it.each([
    ['', true],
    ['application/octet-stream', true],
    ['image/png', true],
    ['text/plain', false],
    ['application/json', false],
    ['application/problem+json', false],
    ['application/xml', false],
  ])('treats "%s" as binary: %s', (type, binary) => {
    expect(isBinaryMediaType(type)).toBe(binary);
  });
});
