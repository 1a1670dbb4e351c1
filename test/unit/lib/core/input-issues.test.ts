/** Input errors that teach (lib/core/input-issues.ts). */

import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { describeValue, inputIssuesOf, parseInput } from '../../../../lib/core/input-issues.ts';

const issuesOf = (where: 'path' | 'query' | 'body', schema: z.ZodMiniType, input: unknown) => {
  const parsed = parseInput(where, schema, input);
  if (parsed.success) throw new Error('expected a failure');
  return parsed.issues;
};

const query = z.strictObject({
  page: z._default(z.string().check(z.regex(/^[1-9][0-9]*$/, 'expected a positive integer')), '1'),
  limit: z._default(z.string(), '10'),
});
const body = z.strictObject({
  searchType: z.enum(['memo', 'url', '']),
  limit: z.optional(z.int('expected a positive integer').check(z.positive())),
  text: z.optional(z.string().check(z.minLength(1), z.maxLength(5))),
  nested: z.optional(z.strictObject({ a: z.optional(z.boolean()), b: z.optional(z.null()) })),
  either: z.optional(z.union([z.string(), z.number()])),
  token: z.optional(z.int()),
});

describe('inputIssuesOf', () => {
  it('names an unknown query parameter with the ones the route knows', () => {
    expect(issuesOf('query', query, { pgae: '2' })).toEqual([
      { path: 'query.pgae', issue: 'unknown parameter; expected one of page, limit' },
    ]);
  });

  it('names an unknown body member, nested too', () => {
    expect(issuesOf('body', body, { searchType: 'url', nested: { c: 1 }, pages: 2 })).toEqual([
      { path: 'body.nested.c', issue: 'unknown member; expected one of a, b' },
      {
        path: 'body.pages',
        issue: 'unknown member; expected one of searchType, limit, text, nested, either, token',
      },
    ]);
  });

  it('says an object that takes nothing takes nothing', () => {
    expect(issuesOf('query', z.strictObject({}), { x: '1' })).toEqual([
      { path: 'query.x', issue: 'unknown parameter; this query takes none' },
    ]);
  });

  it('lists the allowed values of an enumeration, and what came', () => {
    expect(issuesOf('body', body, { searchType: 'URL' })).toEqual([
      { path: 'body.searchType', issue: 'expected one of "memo", "url", ""; got "URL"' },
    ]);
  });

  it('says the expected type and what came', () => {
    expect(issuesOf('body', body, { searchType: 'url', limit: '5' })).toEqual([
      { path: 'body.limit', issue: 'expected a positive integer, got "5"' },
    ]);
    expect(issuesOf('body', body, { searchType: 'url', nested: { a: 'yes', b: 0 } })).toEqual([
      { path: 'body.nested.a', issue: 'expected true or false, got "yes"' },
      { path: 'body.nested.b', issue: 'expected null, got 0' },
    ]);
    expect(issuesOf('body', body, { searchType: 'url', either: true })).toEqual([
      { path: 'body.either', issue: 'expected a string or a number, got true' },
    ]);
  });

  it('says the bounds of a length', () => {
    expect(issuesOf('body', body, { searchType: 'url', text: '' })).toEqual([
      { path: 'body.text', issue: 'expected a non-empty string, got ""' },
    ]);
    expect(issuesOf('body', body, { searchType: 'url', text: 'abcdef' })).toEqual([
      { path: 'body.text', issue: 'expected at most 5 characters, got "abcdef"' },
    ]);
  });

  it('says what is required, and that a body is', () => {
    expect(issuesOf('body', body, {})).toEqual([
      { path: 'body.searchType', issue: 'required; expected one of "memo", "url", ""' },
    ]);
    expect(issuesOf('body', body, undefined)).toEqual([
      { path: 'body', issue: 'a body is required; expected a JSON object' },
    ]);
    expect(issuesOf('body', body, [1, 2])).toEqual([
      { path: 'body', issue: 'expected a JSON object, got an array of 2 items' },
    ]);
  });

  it('keeps a refinement in its own words', () => {
    const pair = z
      .object({ a: z.string(), b: z.string() })
      .check(z.refine((v) => v.a !== v.b, { message: 'a and b must differ', path: ['b'] }));
    expect(issuesOf('body', pair, { a: 'x', b: 'x' })).toEqual([
      { path: 'body.b', issue: 'a and b must differ' },
    ]);
  });

  it('never echoes a long value, or one under a credential name', () => {
    const long = 'x'.repeat(41);
    const [issue] = issuesOf('body', body, { searchType: long });
    expect(issue?.issue).toBe('expected one of "memo", "url", ""; got a string of 41 characters');
    expect(
      JSON.stringify(issuesOf('body', body, { searchType: 'url', token: 'sk_live_12' })),
    ).not.toContain('sk_live_12');
    expect(describeValue('sk_live_12', ['apiKey'])).toBe('a string of 10 characters');
    expect(describeValue('x'.repeat(40))).toBe(JSON.stringify('x'.repeat(40)));
    expect(describeValue({ a: 1 })).toBe('an object');
  });

  it('cuts a long unknown member name in its path', () => {
    const name = 'n'.repeat(100);
    const [issue] = issuesOf('body', body, { searchType: 'url', [name]: 1 });
    expect(issue?.path).toBe(`body.${'n'.repeat(40)}…`);
  });

  it('works from a zod error without the schema or the input, less precisely', () => {
    const result = query.safeParse({ pgae: '2' });
    if (result.success) throw new Error('expected a failure');
    expect(inputIssuesOf('query', result.error)).toEqual([
      { path: 'query.pgae', issue: 'unknown parameter' },
    ]);
  });
});
