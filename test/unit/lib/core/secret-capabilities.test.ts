import { describe, expect, it } from 'vitest';
import { SECRET_CAPABILITIES, secretIdSetting } from '../../../../lib/core/secret-capabilities.ts';

describe('the capabilities of a secret', () => {
  it('are the five parts a secret may be split into', () => {
    expect(SECRET_CAPABILITIES).toEqual([
      'signing',
      'catalogue',
      'execution',
      'webhooks',
      'callers',
    ]);
  });

  it("name each capability's own secret by a setting of its own", () => {
    expect(SECRET_CAPABILITIES.map(secretIdSetting)).toEqual([
      'SIGNING_SECRET_ID',
      'CATALOGUE_SECRET_ID',
      'EXECUTION_SECRET_ID',
      'WEBHOOKS_SECRET_ID',
      'CALLERS_SECRET_ID',
    ]);
  });
});
