import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import {
  httpUrl,
  isoDate,
  lonLat,
  oneOf,
  pairsOf,
  repeated,
  segment,
  someOf,
  strictInput,
  text,
  token,
} from '../../../../lib/catalogue/fields.ts';

/** The messages of a refusal: what the caller reads in the 400's details. */
function refusal(schema: z.ZodMiniType, value: unknown): string[] {
  const result = schema.safeParse(value);
  expect(result.success).toBe(false);
  return (result.error?.issues ?? []).map((issue) => issue.message);
}

const accepts = (schema: z.ZodMiniType, value: unknown) =>
  expect(schema.safeParse(value).error?.issues ?? []).toEqual([]);

describe('strictInput', () => {
  const input = strictInput({ a: z.string('expected a string') });

  it('refuses a member it does not know, naming it: a misspelt parameter is an error', () => {
    expect(refusal(input, { a: 'x', pages: '2', limt: '1' })).toEqual([
      'unknown parameter(s): pages, limt',
    ]);
  });

  it('refuses what is not an object, and checks its members', () => {
    expect(refusal(input, 'a=x')).toEqual(['expected an object']);
    expect(refusal(input, { a: 1 })).toEqual(['expected a string']);
    accepts(input, { a: 'x' });
  });
});

describe('text', () => {
  it('takes a string of the bounds, and says which bound was missed', () => {
    accepts(text(1, 3), 'abc');
    expect(refusal(text(1, 3), '')).toEqual(['expected a non-empty string']);
    expect(refusal(text(2, 3), 'a')).toEqual(['expected 2+ characters']);
    expect(refusal(text(1, 3), 'abcd')).toEqual(['expected at most 3 characters']);
    expect(refusal(text(1, 3), 5)).toEqual(['expected a string']);
  });
});

describe('oneOf', () => {
  it('lists the values it takes', () => {
    accepts(oneOf(['ko', 'en']), 'en');
    expect(refusal(oneOf(['ko', 'en']), 'fr')).toEqual(['expected one of: ko, en']);
  });
});

describe('someOf', () => {
  it('takes one or more of its values joined by its separator, and says which and how', () => {
    const options = someOf(['trafast', 'tracomfort'], ':');
    accepts(options, 'trafast');
    accepts(options, 'trafast:tracomfort');
    expect(refusal(options, 'trafast:fastest')).toEqual([
      'expected one or more of trafast, tracomfort, joined by :',
    ]);
    expect(refusal(someOf(['addr', 'roadaddr'], ',', 'commas'), 'addr:roadaddr')).toEqual([
      'expected one or more of addr, roadaddr, joined by commas',
    ]);
  });
});

describe('lonLat', () => {
  it('takes "longitude,latitude" in degrees, as given', () => {
    expect(lonLat().parse('127.1054,37.3595')).toBe('127.1054,37.3595');
    accepts(lonLat(), '-180,-90');
    accepts(lonLat(), '180,90');
  });

  it('refuses another shape, and a point off the globe', () => {
    const shape = 'expected "longitude,latitude" in degrees, e.g. 127.1054,37.3595';
    for (const value of ['127.1,', '127.1 37.3', '37.3', 'a,b', '127.1,37.3,1', '1e2,3']) {
      expect(refusal(lonLat(), value)).toContain(shape);
    }
    expect(refusal(lonLat(), '181,37')).toEqual(['longitude or latitude out of range']);
    expect(refusal(lonLat(), '127,91')).toEqual(['longitude or latitude out of range']);
  });
});

describe('repeated', () => {
  const values = repeated(token(8), 2);

  it('gives an array, from one value or several', () => {
    expect(values.parse('a')).toEqual(['a']);
    expect(values.parse(['a', 'b'])).toEqual(['a', 'b']);
  });

  it('refuses more values than it takes, and values of another kind', () => {
    expect(refusal(values, ['a', 'b', 'c'])).toEqual(['expected at most 2 values']);
    expect(refusal(values, 3)).toEqual(['expected a string or repeated strings']);
  });
});

describe('httpUrl', () => {
  it('takes an absolute http or https URL', () => {
    accepts(httpUrl(), 'https://example.com/a?b=c');
    accepts(httpUrl(), 'http://example.com');
  });

  it('refuses another scheme, a relative URL, and one too long', () => {
    for (const value of ['ftp://example.com/a', 'javascript:alert(1)', '/a/b', 'example.com']) {
      expect(refusal(httpUrl(), value)).toContain('expected an absolute http(s) URL');
    }
    expect(refusal(httpUrl(), `https://example.com/${'a'.repeat(4096)}`)).toContain(
      'expected a URL of at most 4096 characters',
    );
  });
});

describe('isoDate', () => {
  it('takes a date that exists', () => {
    accepts(isoDate(), '2024-02-29');
  });

  it('refuses another shape, and a date that does not exist', () => {
    expect(refusal(isoDate(), '2024-2-1')).toContain('expected a date yyyy-MM-dd');
    expect(refusal(isoDate(), '2023-02-29')).toEqual(['expected a date that exists']);
    expect(refusal(isoDate(), '2023-13-01')).toEqual(['expected a date that exists']);
  });
});

describe('token and segment', () => {
  it('take a bounded word of letters, digits, _ . -', () => {
    accepts(token(), 'satellite_base.v2-x');
    expect(refusal(token(4), 'abcde')).toEqual([
      'expected a word of letters, digits, _ . - (at most 4)',
    ]);
    expect(refusal(token(), 'a/b')).toHaveLength(1);
    expect(refusal(token(), '')).toHaveLength(1);
  });

  it('refuse a path segment of dots only, which would move the upstream path', () => {
    accepts(token(), '..');
    for (const value of ['.', '..', '...']) {
      expect(refusal(segment(), value)).toEqual(['expected a word that is not only dots']);
    }
    accepts(segment(), '.a.');
  });
});

describe('pairsOf', () => {
  it('gives the parameters in the order named, each repeated value its own pair, absent ones left out', () => {
    const values = { b: ['1', '2'], a: 'x', c: undefined, n: 3 };
    expect(pairsOf(values, ['a', 'b', 'c', 'n'])).toEqual([
      ['a', 'x'],
      ['b', '1'],
      ['b', '2'],
      ['n', '3'],
    ]);
  });
});
