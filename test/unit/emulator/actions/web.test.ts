import { describe, expect, it } from 'vitest';
import { httpResponseOf, isBinaryMediaType } from '../../../../emulator/actions/web.ts';
import { ACTIVATION_ID_HEADER, ECHO_BINARY_BODY, WEB_METHODS } from '../../../../emulator/index.ts';
import { emulatorForSuite } from '../../../helpers/emulator.ts';
import { call, jsonOf } from './helpers.ts';

const ORIGIN = 'x-platform-apigw-response-origin';

interface Echo {
  method: string;
  path: string;
  headers: Record<string, string>;
  params: Record<string, unknown>;
  body: unknown;
}

describe('web action echo', () => {
  const emulator = emulatorForSuite();

  const echo = async (options: Parameters<typeof call>[2] = {}) => {
    const response = await call(emulator, 'echo', options);
    return { response, body: (await jsonOf(response)) as unknown as Echo };
  };

  it.each(WEB_METHODS.filter((method) => method !== 'HEAD'))(
    'runs with %s and hands it over lower case in __ow_method',
    async (method) => {
      const { response, body } = await echo({ method });

      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/json');
      expect(response.headers.get('x-echo')).toBe('true');
      expect(response.headers.get(ORIGIN)).toBe('ENDPOINT');
      expect(response.headers.get(ACTIVATION_ID_HEADER)).toMatch(/^[0-9a-f]{32}$/);
      expect(body.method).toBe(method.toLowerCase());
      expect(emulator.actions.activations()).toMatchObject([{ name: 'echo', method }]);
    },
  );

  it('runs with HEAD and answers the headers without a body', async () => {
    const response = await call(emulator, 'echo', { method: 'HEAD' });

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.text()).toBe('');
    expect(emulator.actions.activations()[0]?.params['__ow_method']).toBe('head');
  });

  it('answers an undefined method with the gateway 404/300, and runs nothing', async () => {
    const response = await call(emulator, 'echo', { method: 'PROPFIND' });

    expect(response.status).toBe(404);
    expect(response.headers.get(ORIGIN)).toBe('APIGW');
    expect(emulator.actions.activations()).toEqual([]);
  });

  it('passes query params and the lower-case request headers', async () => {
    const { body } = await echo({
      method: 'GET',
      query: '?blocking=true&result=true&name=Ada',
      headers: { 'X-Custom': 'yes' },
    });

    expect(body.params).toEqual({ blocking: 'true', result: 'true', name: 'Ada' });
    expect(body.headers['x-custom']).toBe('yes');
    expect(body.path).toBe('');
    expect(body.body).toBeNull();
  });

  it('merges a JSON object body into the params, the body winning over the query', async () => {
    const { body } = await echo({ query: '?name=query&page=1', body: { name: 'body', n: 2 } });

    expect(body.params).toEqual({ name: 'body', page: '1', n: 2 });
    expect(body.body).toBeNull();
  });

  it('merges a form body into the params', async () => {
    const { body } = await echo({
      body: 'a=1&b=two',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });

    expect(body.params).toEqual({ a: '1', b: 'two' });
  });

  it('hands a JSON value that is not an object over as __ow_body', async () => {
    const { body } = await echo({
      method: 'PUT',
      body: '[1,2]',
      headers: { 'content-type': 'application/json' },
    });

    expect(body.body).toEqual([1, 2]);
  });

  it('hands a text body over as plain text in __ow_body', async () => {
    const { body } = await echo({ body: 'héllo', headers: { 'content-type': 'text/plain' } });

    expect(body.body).toBe('héllo');
  });

  it('hands a binary body over as base64 in __ow_body', async () => {
    const bytes = Buffer.from([0, 1, 2, 0xfe, 0xff]);
    const { body } = await echo({
      method: 'PATCH',
      body: bytes,
      headers: { 'content-type': 'application/octet-stream' },
    });

    expect(body.body).toBe(bytes.toString('base64'));
  });

  it('hands the path below the resource over as __ow_path', async () => {
    const response = await fetch(`${emulator.url}/fx7h2k/demo/echo/items/42`);
    const body = (await jsonOf(response)) as unknown as Echo;

    expect(response.status).toBe(200);
    expect(body.path).toBe('/items/42');
  });

  it('refuses a caller that sets a reserved __ow_ param with 400, and runs nothing', async () => {
    const response = await call(emulator, 'echo', { body: { __ow_method: 'get' } });

    expect(response.status).toBe(400);
    expect(String((await jsonOf(response))['error'])).toContain('not allowed');
    expect(emulator.actions.activations()).toEqual([]);
  });

  it('refuses malformed JSON with 400, and runs nothing', async () => {
    const response = await call(emulator, 'echo', {
      body: '{',
      headers: { 'content-type': 'application/json' },
    });

    expect(response.status).toBe(400);
    expect(emulator.actions.activations()).toEqual([]);
  });

  it('answers the status the action sets', async () => {
    const response = await call(emulator, 'echo', { method: 'DELETE', query: '?status=404' });

    expect(response.status).toBe(404);
    expect(response.headers.get(ORIGIN)).toBe('ENDPOINT');
    expect(((await jsonOf(response)) as unknown as Echo).method).toBe('delete');
  });

  it('passes a text/plain answer through', async () => {
    const response = await call(emulator, 'echo', { method: 'GET', query: '?reply=text' });

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/plain; charset=UTF-8');
    expect(await response.text()).toBe('echo get /');
  });

  it('passes a binary answer through byte for byte (decoded from base64)', async () => {
    const response = await call(emulator, 'echo', { method: 'GET', query: '?reply=binary' });

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/octet-stream');
    expect(Buffer.from(await response.arrayBuffer())).toEqual(ECHO_BINARY_BODY);
  });

  it('sends a binary request body back byte for byte with reply=raw', async () => {
    const bytes = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0xff, 0x80]);
    const response = await call(emulator, 'echo', {
      query: '?reply=raw',
      body: bytes,
      headers: { 'content-type': 'image/png' },
    });

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await response.arrayBuffer())).toEqual(bytes);
  });

  it('sends a text request body back with reply=raw', async () => {
    const response = await call(emulator, 'echo', {
      query: '?reply=raw',
      body: '<a>1</a>',
      headers: { 'content-type': 'application/xml' },
    });

    expect(response.headers.get('content-type')).toBe('application/xml; charset=UTF-8');
    expect(await response.text()).toBe('<a>1</a>');
  });
});

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
