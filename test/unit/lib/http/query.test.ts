import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { queryOf } from '../../../../lib/http/query.ts';

/** What URLSearchParams gives, with a repeated key as an array in order. */
function reference(raw: string): Record<string, string | string[]> {
  const values = new Map<string, string[]>();
  for (const [key, value] of new URLSearchParams(raw)) {
    values.set(key, [...(values.get(key) ?? []), value]);
  }
  return Object.fromEntries(
    [...values].map(([key, list]) => [key, list.length === 1 ? list[0]! : list]),
  );
}

describe('queryOf', () => {
  it.each([
    ['page=1&limit=10', { page: '1', limit: '10' }],
    ['', {}],
    ['a&&b=&=c', { a: '', b: '', '': 'c' }],
    ['k=1&k=2&k=3', { k: ['1', '2', '3'] }],
    ['q=a+b%20c', { q: 'a b c' }],
    ['q=%E2%82%AC&r=%zz', { q: '€', r: '%zz' }],
    ['x=a=b', { x: 'a=b' }],
  ])('reads %j as URLSearchParams does', (raw, expected) => {
    expect({ ...queryOf(raw) }).toEqual(expected);
  });

  it('takes constructor and __proto__ for keys like any other', () => {
    const values = queryOf('constructor=1&__proto__=2&toString=3');
    expect(Object.entries(values)).toEqual([
      ['constructor', '1'],
      ['__proto__', '2'],
      ['toString', '3'],
    ]);
    expect(Object.getPrototypeOf(values)).toBe(Object.prototype);
    expect(Object.entries(queryOf('__proto__=1&__proto__=2'))).toEqual([['__proto__', ['1', '2']]]);
  });

  it('gives what URLSearchParams gives, whatever the query holds', () => {
    const part = fc.oneof(
      fc.stringMatching(/^[A-Za-z0-9._~-]{0,6}$/),
      fc.string({ unit: 'binary', maxLength: 6 }),
      fc.constantFrom('%', '+', '%2', '%41', '%E2%82%AC', '%ff', '='),
    );
    const pair = fc.tuple(part, fc.option(part, { nil: undefined }));
    fc.assert(
      fc.property(fc.array(pair, { maxLength: 5 }), (pairs) => {
        const raw = pairs
          .map(([key, value]) => (value === undefined ? key : `${key}=${value}`))
          .join('&');
        expect({ ...queryOf(raw) }).toEqual(reference(raw));
      }),
      { numRuns: 1000 },
    );
  });
});
