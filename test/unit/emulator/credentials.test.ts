import { describe, expect, it } from 'vitest';
import {
  demoCredentials,
  INACTIVE_ACCESS_KEY,
  INACTIVE_API_KEY,
  INACTIVE_SECRET_KEY,
} from '../../../emulator/index.ts';
import { DEMO_ACCESS_KEY, DEMO_API_KEY, DEMO_SECRET_KEY } from './helpers.ts';

describe('demo credentials', () => {
  it('derive from the demo secret and add inactive keys', () => {
    const credentials = demoCredentials();

    expect(credentials.accessKeys).toEqual([
      { accessKey: DEMO_ACCESS_KEY, secretKey: DEMO_SECRET_KEY, active: true },
      { accessKey: INACTIVE_ACCESS_KEY, secretKey: INACTIVE_SECRET_KEY, active: false },
    ]);
    expect(credentials.apiKeys).toEqual([
      { key: DEMO_API_KEY, active: true },
      { key: INACTIVE_API_KEY, active: false },
    ]);
    expect(credentials.requireApiKey).toBe(true);
    expect(credentials.apps).toEqual([
      { clientId: 'democlient', clientSecret: 'democlientsecret000000000000000000000001' },
    ]);
  });
});
