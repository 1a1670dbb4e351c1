import { describe, expect, it } from 'vitest';
import { InputError } from '../../../../lib/core/errors.ts';
import {
  callerJson,
  callerJsonObject,
  isJsonObject,
  jsonObjectOf,
  parseJsonOrUndefined,
} from '../../../../lib/core/json.ts';

describe('isJsonObject', () => {
  it('is true for an object only: not null, an array or a scalar', () => {
    expect(isJsonObject({})).toBe(true);
    expect(isJsonObject({ a: 1 })).toBe(true);
    for (const value of [null, [], [1], 'x', 0, false, undefined]) {
      expect(isJsonObject(value)).toBe(false);
    }
  });
});

describe('parseJsonOrUndefined', () => {
  it('parses any JSON value, and gives undefined for text that is not JSON', () => {
    expect(parseJsonOrUndefined('{"a":[1,2]}')).toEqual({ a: [1, 2] });
    expect(parseJsonOrUndefined('null')).toBeNull();
    expect(parseJsonOrUndefined('3')).toBe(3);
    expect(parseJsonOrUndefined('{"a":')).toBeUndefined();
    expect(parseJsonOrUndefined('')).toBeUndefined();
    expect(parseJsonOrUndefined('<xml/>')).toBeUndefined();
  });
});

describe('jsonObjectOf', () => {
  it('gives the object of a JSON object text, and undefined for any other text', () => {
    expect(jsonObjectOf('{"error":{"errorCode":"200"}}')).toEqual({ error: { errorCode: '200' } });
    for (const text of ['[]', 'null', '"text"', '1', 'not json']) {
      expect(jsonObjectOf(text)).toBeUndefined();
    }
  });
});

/** The 400 a caller gets, as its envelope's parts. */
function refusal(run: () => unknown) {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(InputError);
    const { status, code, details } = error as InputError;
    return { status, code, details };
  }
  throw new Error('expected a refusal');
}

describe('callerJson', () => {
  it("parses a caller's UTF-8 bytes", () => {
    expect(callerJson(Buffer.from('{"text":"안녕"}'))).toEqual({ text: '안녕' });
    expect(callerJson(Buffer.from('[1]'))).toEqual([1]);
  });

  it('refuses text that is not JSON with a 400/100 naming the body', () => {
    expect(refusal(() => callerJson(Buffer.from('{"n":')))).toEqual({
      status: 400,
      code: '100',
      details: [{ path: 'body', issue: 'expected a JSON document' }],
    });
  });
});

describe('callerJsonObject', () => {
  it('gives the object of a JSON object body', () => {
    expect(callerJsonObject(Buffer.from('{"n":1}'))).toEqual({ n: 1 });
  });

  it.each(['0', 'false', 'null', '"text"', '[{"n":1}]'])(
    'refuses the JSON %s with a 400/100 naming the body',
    (text) => {
      expect(refusal(() => callerJsonObject(Buffer.from(text)))).toEqual({
        status: 400,
        code: '100',
        details: [{ path: 'body', issue: 'expected a JSON object' }],
      });
    },
  );

  it('says what it expected in the words it is given', () => {
    expect(
      refusal(() => callerJsonObject(Buffer.from('[]'), 'expected the params object'))?.details,
    ).toEqual([{ path: 'body', issue: 'expected the params object' }]);
  });
});
