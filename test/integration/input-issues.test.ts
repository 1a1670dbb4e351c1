/**
 * Every route's refusals teach: for each route of the registry, wrong input in its path, query
 * and body is described by lib/core/input-issues.ts (what the validation of every route calls)
 * in words that name the parameter or member, list an enumeration's values, say the type
 * expected and what came, and never echo a long value.
 */

import { describe, expect, it } from 'vitest';
import { type InputPlace, parseInput } from '../../lib/core/input-issues.ts';
import { knownKeysAt } from '../../lib/core/known-keys.ts';
import type { Schema } from '../../lib/core/schemas.ts';
import { routes } from '../../lib/http/routes/index.ts';
import type { Route } from '../../lib/http/routes/route.ts';

/** The route's schemas by where their input comes from. */
function schemasOf(route: Route): [InputPlace, Schema][] {
  const input = route.input ?? {};
  return (
    [
      ['path', input.path],
      ['query', input.query],
      ['body', input.body],
    ] as const
  ).filter((pair): pair is [InputPlace, Schema] => pair[1] !== undefined);
}

const withSchemas = routes.filter((route) => schemasOf(route).length > 0);
const keyOf = (route: Route) => `${route.method} ${route.path}`;

/** What every issue must look like: a word that teaches, never zod's bare "Invalid input". */
function expectTeaching(issues: readonly { path: string; issue: string }[]) {
  for (const { path, issue } of issues) {
    expect(issue, path).not.toMatch(/Invalid input/);
    expect(issue.length, path).toBeGreaterThan(8);
  }
}

const LONG_SECRET_LOOKING = `sk_${'A'.repeat(60)}`;

describe("every route's input refusals", () => {
  it('covers every route that takes input', () => {
    expect(withSchemas.map(keyOf)).toEqual(
      expect.arrayContaining([
        'GET /jobs',
        'POST /jobs/search',
        'POST /jobs/cancel-reserved',
        'PATCH /jobs/{instanceId}/cancel',
        'ANY /actions/{name}',
        'POST /triggers/{name}',
        'POST /translate',
        'POST /trends',
        'GET /maps/static',
      ]),
    );
  });

  it.each(withSchemas.map((route) => [keyOf(route), route] as const))(
    '%s: names an unknown query parameter or body member, with the known ones',
    (_key, route) => {
      for (const [where, schema] of schemasOf(route)) {
        if (where === 'path') continue;
        const known = knownKeysAt(schema, []);
        if (!known) continue; // not an object (a raw body)
        const parsed = parseInput(where, schema, { pgae: '2' });
        expect(parsed.success, `${where} took an unknown member`).toBe(false);
        if (parsed.success) continue;
        const unknown = parsed.issues.find((issue) => issue.path === `${where}.pgae`);
        const word = where === 'query' ? 'parameter' : 'member';
        expect(unknown?.issue, where).toBe(
          known.length > 0
            ? `unknown ${word}; expected one of ${known.join(', ')}`
            : `unknown ${word}; this ${where === 'body' ? 'object' : where} takes none`,
        );
        expectTeaching(parsed.issues);
      }
    },
  );

  it.each(withSchemas.map((route) => [keyOf(route), route] as const))(
    '%s: says what each member expected, and what came, never a long value',
    (_key, route) => {
      for (const [where, schema] of schemasOf(route)) {
        const known = knownKeysAt(schema, []);
        if (!known) continue;
        // Every member given a value of the wrong kind (an object for a query's text, a long
        // token-like string for a body's member).
        for (const wrong of [{}, LONG_SECRET_LOOKING, 12345]) {
          const input = Object.fromEntries(known.map((name) => [name, wrong]));
          const parsed = parseInput(where, schema, input);
          if (parsed.success) continue;
          expectTeaching(parsed.issues);
          expect(JSON.stringify(parsed.issues)).not.toContain(LONG_SECRET_LOOKING);
          for (const { path, issue } of parsed.issues) {
            if (!/^(expected|required)/.test(issue)) continue;
            expect(issue, path).toMatch(/got (an object|a string of \d+ characters|12345)$/);
          }
        }
        // Nothing at all: what is required says so.
        const parsed = parseInput(where, schema, where === 'body' ? undefined : {});
        if (!parsed.success) {
          expectTeaching(parsed.issues);
          for (const { path, issue } of parsed.issues) {
            expect(issue, path).toMatch(/^(a body is )?required; expected /);
          }
        }
      }
    },
  );

  it('lists the allowed values of every enumeration a route takes', () => {
    const cases: [string, InputPlace, Record<string, unknown>, string, RegExp][] = [
      [
        'POST /jobs/search',
        'body',
        { searchType: 'URL' },
        'body.searchType',
        /one of "memo", "url", ""; got "URL"/,
      ],
      [
        'POST /jobs/cancel-reserved',
        'body',
        { searchType: 'any', searchKeyword: 'x' },
        'body.searchType',
        /one of "url", "memo"; got "any"/,
      ],
      [
        'ANY /actions/{name}',
        'query',
        { result: 'yes' },
        'query.result',
        /expected true or false; got "yes"|expected true or false, got "yes"/,
      ],
      [
        'POST /translate',
        'body',
        { source: 'xx', target: 'en', text: 'a' },
        'body.source',
        /one of: auto, ko, en.*got "xx"/,
      ],
      [
        'POST /tts',
        'body',
        { speaker: 'bob', text: 'a' },
        'body.speaker',
        /one of: mijin, .*got "bob"/,
      ],
      [
        'POST /trends',
        'body',
        { timeUnit: 'day' },
        'body.timeUnit',
        /one of: date, week, month; got "day"/,
      ],
      [
        'GET /maps/directions',
        'query',
        { start: '1,1', goal: '2,2', option: 'fast' },
        'query.option',
        /trafast/,
      ],
    ];
    for (const [key, where, input, path, teaching] of cases) {
      const route = routes.find((each) => keyOf(each) === key);
      const schema = route ? schemasOf(route).find(([place]) => place === where)?.[1] : undefined;
      expect(schema, key).toBeDefined();
      const parsed = parseInput(where, schema!, input);
      expect(parsed.success, key).toBe(false);
      if (parsed.success) continue;
      expect(parsed.issues.find((issue) => issue.path === path)?.issue, key).toMatch(teaching);
    }
  });

  it('says the expected type of a wrong one: limit "5" in a search body', () => {
    const route = routes.find((each) => keyOf(each) === 'POST /jobs/search')!;
    const parsed = parseInput('body', route.input!.body!, { limit: '5' });
    expect(parsed).toEqual({
      success: false,
      issues: [{ path: 'body.limit', issue: 'expected a positive integer, got "5"' }],
    });
  });

  it('names a bad path parameter and what came', () => {
    const route = routes.find((each) => keyOf(each) === 'PATCH /jobs/{instanceId}/cancel')!;
    const parsed = parseInput('path', route.input!.path!, { instanceId: '../x' });
    expect(parsed).toEqual({
      success: false,
      issues: [
        {
          path: 'path.instanceId',
          issue: 'expected a job instanceNo (letters, digits, _ or -); got "../x"',
        },
      ],
    });
  });
});
