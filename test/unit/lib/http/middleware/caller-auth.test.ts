import { describe, expect, it } from 'vitest';
import { tokenMatches } from '../../../../../lib/http/middleware/caller-auth.js';

describe('tokenMatches', () => {
  it('matches only whole tokens', () => {
    expect(tokenMatches('abc', ['x', 'abc'])).toBe(true);
    expect(tokenMatches('ab', ['abc'])).toBe(false);
    expect(tokenMatches('abcd', ['abc'])).toBe(false);
    expect(tokenMatches('abc', [])).toBe(false);
  });
});
