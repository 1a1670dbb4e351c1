/** The members an object of a schema knows (lib/core/known-keys.ts), under its wrappers. */
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { knownKeysAt } from '../../../../lib/core/known-keys.ts';

describe('knownKeysAt: the members an object knows', () => {
  const body = z.strictObject({
    searchType: z.enum(['memo', 'url', '']),
    nested: z.optional(z.strictObject({ a: z.optional(z.boolean()), b: z.optional(z.null()) })),
  });

  it('reads the members an object knows under defaults, optionals and pipes', () => {
    const piped = z.pipe(
      z.optional(body),
      z.transform((v) => v),
    );
    expect(knownKeysAt(piped, ['nested'])).toEqual(['a', 'b']);
    expect(knownKeysAt(z.array(body), [0])).toContain('searchType');
    expect(knownKeysAt(z.string(), [])).toBeUndefined();
  });
});
