import { describe, expect, it } from 'vitest';
import { executionQuerySchema } from '../../../../../lib/http/routes/functions.ts';

describe('executionQuerySchema', () => {
  it.each([
    [{}, true],
    [{ result: 'true' }, true],
    [{ result: 'false' }, false],
  ])('reads %j as result=%s', (query, expected) => {
    expect(executionQuerySchema.parse(query)).toEqual({ result: expected });
  });

  it.each([{ result: 'yes' }, { result: '' }, { result: 'TRUE' }, { result: ['true', 'true'] }])(
    'refuses %j',
    (query) => {
      expect(executionQuerySchema.safeParse(query).success).toBe(false);
    },
  );
});
