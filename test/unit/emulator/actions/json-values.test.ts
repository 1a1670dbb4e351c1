/**
 * Parameters nested deeply (emulator/actions/json-values.ts): an action runs with them up to
 * the platform parser's 1,000 levels, they are kept and copied without overflowing the stack,
 * and deeper JSON is refused as the platform refuses it (400, malformed), never a 500.
 */
import { describe, expect, it } from 'vitest';
import { copyJson, depthOf, MAX_JSON_DEPTH } from '../../../../emulator/actions/json-values.ts';
import { emulatorForSuite } from '../../../helpers/emulator.ts';
import { call, jsonOf } from './helpers.ts';

/** `{"a":{"a":...1...}}`, `depth` objects deep, as text (JSON.stringify would recurse). */
function nested(depth: number, open = '{"a":', close = '}'): string {
  return `${open.repeat(depth)}1${close.repeat(depth)}`;
}

describe('deeply nested parameters', () => {
  const emulator = emulatorForSuite();

  it.each([100, 1000])(
    'runs an action with parameters %i levels deep, and remembers them',
    async (depth) => {
      const response = await call(emulator, 'hello', {
        query: '?blocking=true&result=true',
        body: nested(depth),
        headers: { 'content-type': 'application/json' },
      });
      expect(response.status).toBe(200);
      expect(await jsonOf(response)).toEqual({ payload: 'Hello, World!' });
      const last = emulator.actions.activations().at(-1);
      expect(depthOf(last?.params, Number.POSITIVE_INFINITY)).toBe(depth);
    },
  );

  it.each([
    ['objects', nested(MAX_JSON_DEPTH + 1)],
    ['arrays in an object', `{"x":${nested(MAX_JSON_DEPTH, '[', ']')}}`],
    ['objects, 50,000 deep', nested(50_000)],
  ])(
    'refuses %s deeper than 1,000 levels as the platform does: 400, malformed',
    async (_case, body) => {
      const response = await call(emulator, 'echo', {
        query: '?blocking=true',
        body,
        headers: { 'content-type': 'application/json' },
      });
      expect(response.status).toBe(400);
      expect((await jsonOf(response)).error).toMatch(
        /^The request content was malformed:\nJSON input nested too deeply/,
      );
    },
  );
});

describe('copyJson and depthOf', () => {
  it('copies a value of any depth, sharing nothing with it', () => {
    const deep = JSON.parse(nested(100_000)) as Record<string, unknown>;
    const copy = copyJson(deep);
    expect(copy === deep).toBe(false);
    expect(depthOf(copy, Number.POSITIVE_INFINITY)).toBe(100_000);
    const mixed = { a: [1, { b: null, c: 'x' }], d: true };
    expect(copyJson(mixed)).toEqual(mixed);
    expect(copyJson(mixed).a).not.toBe(mixed.a);
  });

  it('counts depth, and stops counting past the limit', () => {
    expect(depthOf(1)).toBe(0);
    expect(depthOf({})).toBe(1);
    expect(depthOf({ a: [1, [2]] })).toBe(3);
    expect(depthOf(JSON.parse(nested(5000)), 10)).toBe(11);
  });
});
