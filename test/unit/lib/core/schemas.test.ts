/**
 * The input pieces several routes and the secret share (lib/core/schemas.ts): the dot-only
 * segment that would move an upstream path, names, and integers as JSON and as text.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import {
  hasDotOnlySegment,
  int,
  intText,
  isDotOnlySegment,
  namePathSchema,
  nameSchema,
} from '../../../../lib/core/schemas.ts';
import { jsonSchemaOf } from '../../../../lib/http/openapi-operation.ts';

/** The messages of what a schema refuses (none when it takes the value). */
const refusal = (schema: z.ZodMiniType, value: unknown) =>
  schema.safeParse(value).error?.issues.map((issue) => issue.message) ?? [];

/** What a parse gave: the value, or each issue's path and message. */
function outcome(schema: z.ZodMiniType, input: unknown) {
  const result = schema.safeParse(input);
  return result.success
    ? { value: result.data }
    : { issues: result.error.issues.map((issue) => [issue.path.join('.'), issue.message]) };
}

describe('a dot-only segment', () => {
  it.each(['.', '..', '...', '%2e', '%2E', '.%2e', '%2e.', '%2E%2e', '%2e%2e%2e'])(
    'is %s',
    (segment) => {
      expect(isDotOnlySegment(segment)).toBe(true);
    },
  );

  it.each(['', 'a', '.a', 'a.', '..a', 'a..b', '%2', '%2f', '%2e%2f', '%2ea', ' .'])(
    'is not %j',
    (segment) => {
      expect(isDotOnlySegment(segment)).toBe(false);
    },
  );

  it('is every segment that URL parsing resolves as "here" or "one level up"', () => {
    // What a URL parser does with a segment: if it moves the path, the segment is refused.
    const segment = fc
      .array(fc.constantFrom('.', '%2e', '%2E', 'a', '%', '2', 'e', '-'), {
        minLength: 1,
        maxLength: 6,
      })
      .map((parts) => parts.join(''));
    fc.assert(
      fc.property(segment, (text) => {
        const moved = new URL(`https://gw.example.com/base/${text}/end`).pathname;
        if (moved !== `/base/${text}/end`) expect(isDotOnlySegment(text), text).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('is found in a path wherever it stands, and only as a whole segment', () => {
    for (const path of ['..', '/..', '/a/..', '/a/../b', 'a/./b', '/a/%2E%2e/b', '/a/%2e']) {
      expect(hasDotOnlySegment(path), path).toBe(true);
    }
    for (const path of ['', '/', '/a/b', '/a/b..c', '/a/.b/c', '/a/..b', '/v1.2/x', '/a/b.']) {
      expect(hasDotOnlySegment(path), path).toBe(false);
    }
  });

  it("is found in a path exactly when one of the path's segments is one", () => {
    const path = fc
      .array(fc.constantFrom('.', '..', '%2e', 'a', 'a.b', '.a', ''), { maxLength: 5 })
      .map((segments) => segments.join('/'));
    fc.assert(
      fc.property(path, (text) => {
        expect(hasDotOnlySegment(text)).toBe(text.split('/').some(isDotOnlySegment));
      }),
    );
  });
});

describe('a name (an action, a trigger, a webhook)', () => {
  it('is 1 to 128 letters, digits, _ . -', () => {
    for (const name of ['hello', 'echo_2', 'nightly-v1.2', 'A', 'x'.repeat(128)]) {
      expect(refusal(nameSchema, name), name).toEqual([]);
    }
  });

  it('refuses anything a path or a key could be led astray by, saying what a name is', () => {
    for (const name of ['', 'x'.repeat(129), 'a/b', 'a b', 'café', 'a%2fb', 'a?b', 'a\nb']) {
      expect(refusal(nameSchema, name), name).toEqual([
        'expected a name of letters, digits, _ . -',
      ]);
    }
  });

  it('is the {name} of a path', () => {
    expect(namePathSchema.parse({ name: 'hello' })).toEqual({ name: 'hello' });
    expect(namePathSchema.safeParse({ name: 'a/b' }).success).toBe(false);
    expect(namePathSchema.safeParse({}).success).toBe(false);
  });
});

describe('int: an integer as JSON sends it', () => {
  const page = int(1, 100);

  it('takes an integer in its range, bounds included', () => {
    expect([page.parse(1), page.parse(100), page.parse(37)]).toEqual([1, 100, 37]);
  });

  it('refuses anything else with one message that states the range', () => {
    for (const value of [0, 101, 1.5, '5', null, Number.NaN, Number.POSITIVE_INFINITY]) {
      const messages = refusal(page, value);
      expect(messages.length, String(value)).toBeGreaterThan(0);
      for (const message of messages) expect(message).toBe('expected an integer from 1 to 100');
    }
  });
});

describe('intText: an integer as a query string or a path segment carries it', () => {
  const limit = intText(1, 100);

  it('reads the text as the number', () => {
    expect([limit.parse('1'), limit.parse('100'), limit.parse('42')]).toEqual([1, 100, 42]);
    expect(intText(-5, 5).parse('-5')).toBe(-5);
  });

  it('refuses every other way of writing a number, and a number outside its range', () => {
    for (const text of ['', '0', '101', '05', '+5', ' 5', '5 ', '5.0', '1e2', '0x10', 'five']) {
      expect(refusal(limit, text), text).toEqual(['expected an integer from 1 to 100']);
    }
  });

  it('refuses a number sent as a number: a query string carries text', () => {
    expect(refusal(limit, 5)).toEqual(['expected an integer from 1 to 100']);
  });

  it('says what it was told to say', () => {
    expect(refusal(intText(1, 9, 'expected a page number'), 'x')).toEqual([
      'expected a page number',
    ]);
  });

  it('stops at ten digits, whatever its range says', () => {
    expect(intText(0, Number.MAX_SAFE_INTEGER).parse('9999999999')).toBe(9_999_999_999);
    expect(refusal(intText(0, Number.MAX_SAFE_INTEGER), '10000000000')).toHaveLength(1);
  });

  it('is documented as the integer a typed client sends, with its range (the OpenAPI builder)', () => {
    expect(jsonSchemaOf(limit)).toMatchObject({
      type: 'integer',
      minimum: 1,
      maximum: 100,
      description: 'expected an integer from 1 to 100',
    });
  });
});

describe('intText in one pipe', () => {
  const message = 'expected a positive integer';
  const page = intText(1, 999_999_999, message);

  it.each([[1], [null], [['1', '2']], [{}]])('refuses a value that is not text: %j', (value) => {
    expect(outcome(page, value)).toEqual({ issues: [['', message]] });
  });

  it('names the field in an object, and each field once', () => {
    const query = z.strictObject({
      page: z._default(page, 1),
      limit: z._default(intText(1, 100), 10),
    });
    expect(outcome(query, {})).toEqual({ value: { page: 1, limit: 10 } });
    expect(outcome(query, { page: '0', limit: 'x' })).toEqual({
      issues: [
        ['page', message],
        ['limit', 'expected an integer from 1 to 100'],
      ],
    });
  });

  it('gives what the text of an integer in range gives, and one issue otherwise', () => {
    const zoom = intText(0, 22);
    const text = fc.oneof(
      fc.integer({ min: -50, max: 50 }).map(String),
      fc.bigInt({ min: -(10n ** 12n), max: 10n ** 12n }).map(String),
      fc.stringMatching(/^[-+ 0-9.e]{0,12}$/),
      fc.string({ maxLength: 12 }),
    );
    fc.assert(
      fc.property(text, (input) => {
        const value = Number(input);
        const valid = /^-?(0|[1-9][0-9]{0,9})$/.test(input) && value >= 0 && value <= 22;
        expect(outcome(zoom, input)).toEqual(
          valid ? { value } : { issues: [['', 'expected an integer from 0 to 22']] },
        );
      }),
    );
  });
});
