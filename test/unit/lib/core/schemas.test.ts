import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { intText } from '../../../../lib/core/schemas.js';

/** What a parse gave: the value, or each issue's path and message. */
function outcome(schema: z.ZodMiniType, input: unknown) {
  const result = schema.safeParse(input);
  return result.success
    ? { value: result.data }
    : { issues: result.error.issues.map((issue) => [issue.path.join('.'), issue.message]) };
}

describe('intText', () => {
  const message = 'expected a positive integer';
  const page = intText(1, 999_999_999, message);

  it.each([
    ['1', 1],
    ['10', 10],
    ['999999999', 999_999_999],
  ])('reads %s as %d', (text, value) => {
    expect(outcome(page, text)).toEqual({ value });
  });

  it.each([
    '0',
    '-1',
    '1000000000',
    '99999999999',
    '01',
    '1.0',
    '1e3',
    '+1',
    ' 1',
    '1 ',
    '',
    'abc',
  ])('refuses %j with one issue that carries the message', (text) => {
    expect(outcome(page, text)).toEqual({ issues: [['', message]] });
  });

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

  it('is documented as an integer with its range', () => {
    expect(z.toJSONSchema(intText(1, 5), { io: 'input' })).toMatchObject({
      type: 'integer',
      minimum: 1,
      maximum: 5,
      description: 'expected an integer from 1 to 5',
    });
  });
});
