import { describe, expect, it } from 'vitest';
import { InputError } from '../../../../lib/core/errors.ts';
import { RequestBody } from '../../../../lib/http/request-body.ts';

const base64 = (text: string) => Buffer.from(text).toString('base64');

describe('RequestBody', () => {
  it('measures a body as sent: UTF-8 bytes, or the decoded size of base64 (with its padding)', () => {
    expect(new RequestBody('한글', false).byteLength).toBe(6);
    for (const text of ['', 'a', 'ab', 'abc', 'abcd', '한글 text']) {
      const body = new RequestBody(base64(text), true);
      expect(body.byteLength).toBe(Buffer.byteLength(text));
    }
  });

  it('is empty when no body was sent', () => {
    expect(new RequestBody(undefined, undefined).empty).toBe(true);
    expect(new RequestBody(null, false).empty).toBe(true);
    expect(new RequestBody('', true).empty).toBe(true);
    expect(new RequestBody('{}', false).empty).toBe(false);
    expect(new RequestBody(undefined, undefined).bytes()).toEqual(Buffer.alloc(0));
  });

  it('gives the bytes as received, decoded once', () => {
    const audio = Buffer.from([0x52, 0x49, 0x46, 0x46, 0x00, 0xff, 0x80]);
    const body = new RequestBody(audio.toString('base64'), true);
    const bytes = body.bytes();
    expect(bytes).toEqual(audio);
    expect(body.bytes()).toBe(bytes);
    expect(new RequestBody('한글', false).bytes()).toEqual(Buffer.from('한글'));
  });

  it("gives the text: the event's own string when it was not base64", () => {
    expect(new RequestBody('{"s":"한"}', false).text()).toBe('{"s":"한"}');
    expect(new RequestBody(base64('{"s":"한"}'), true).text()).toBe('{"s":"한"}');
  });

  it('parses JSON once, whatever reads it after', () => {
    const body = new RequestBody(base64('{"a":{"b":[1]}}'), true);
    const value = body.json();
    expect(value).toEqual({ a: { b: [1] } });
    expect(body.json()).toBe(value);
    expect(new RequestBody('null', false).json()).toBeNull();
  });

  it('refuses text that is not JSON with a 400/100 naming the body, each time it is read', () => {
    const body = new RequestBody('{"n":', false);
    for (let i = 0; i < 2; i++) {
      try {
        body.json();
        expect.unreachable();
      } catch (error) {
        expect(error).toBeInstanceOf(InputError);
        expect(error).toMatchObject({
          status: 400,
          code: '100',
          details: [{ path: 'body', issue: 'expected a JSON document' }],
        });
      }
    }
  });
});
