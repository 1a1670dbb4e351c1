/** The failures that never reach a caller as such: what the log and Lambda see of them. */
import { describe, expect, it } from 'vitest';
import {
  SecretError,
  SecretReadError,
  WatchRunError,
} from '../../../../lib/core/internal-errors.ts';

describe('the failures that never reach a caller as such', () => {
  it("says whether a secret's failure needs an operator: no, unless told", () => {
    const cause = new Error('timeout');
    const passing = new SecretError('Could not read the secret', { cause });
    expect([passing.misconfigured, passing.cause]).toEqual([false, cause]);
    expect(new SecretError('invalid', { misconfigured: true }).misconfigured).toBe(true);
  });

  it("keeps Secrets Manager's exception name, and nothing of the secret", () => {
    const error = new SecretReadError(
      'Secrets Manager refused the read',
      'ResourceNotFoundException',
    );
    expect(error.type).toBe('ResourceNotFoundException');
  });

  it('reports a watcher run that did not finish with its name and message, and no stack frame', () => {
    const error = new WatchRunError('2 of 3 chunks were not announced');
    expect(error.stack).toBe('WatchRunError: 2 of 3 chunks were not announced');
  });
});
