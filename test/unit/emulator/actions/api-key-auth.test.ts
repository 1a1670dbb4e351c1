import { describe, expect, it } from 'vitest';
import { ACTIVATION_ID_HEADER, INACTIVE_API_KEY } from '../../../../emulator/index.ts';
import { emulatorForSuite } from '../../../helpers/emulator.ts';
import { call, DEMO_GATEWAY_API_KEY, jsonOf } from './helpers.ts';

const ORIGIN = 'x-platform-apigw-response-origin';
const API_KEY = 'x-platform-apigw-api-key';

describe('keyed (requires an API key)', () => {
  const emulator = emulatorForSuite();

  it('runs with an active gateway key', async () => {
    const response = await call(emulator, 'keyed', {
      query: '?blocking=true&result=true',
      body: { name: 'Key' },
      headers: { [API_KEY]: DEMO_GATEWAY_API_KEY },
    });

    expect(response.status).toBe(200);
    expect(await jsonOf(response)).toEqual({ payload: 'Hello, Key!' });
  });

  it.each([
    ['missing', undefined, 'The API key is missing.'],
    ['unknown', 'not-a-key', 'Invalid API key.'],
    ['inactive', INACTIVE_API_KEY, 'The API key is inactive.'],
  ])('refuses a %s key with the gateway 401/200, and runs nothing', async (_case, key, details) => {
    const response = await call(emulator, 'keyed', {
      query: '?blocking=true&result=true',
      headers: key === undefined ? {} : { [API_KEY]: key },
    });

    expect(response.status).toBe(401);
    expect(response.headers.get(ORIGIN)).toBe('APIGW');
    expect(response.headers.get(ACTIVATION_ID_HEADER)).toBeNull();
    expect(await jsonOf(response)).toEqual({
      error: { errorCode: '200', message: 'Authentication Failed', details },
    });
    expect(emulator.actions.activations()).toEqual([]);
  });

  it('answers in XML when asked', async () => {
    const response = await call(emulator, 'keyed', { headers: { accept: 'text/xml' } });

    expect(response.status).toBe(401);
    expect(await response.text()).toContain('<errorCode>200</errorCode>');
  });

  it('refuses a key deactivated while the emulator runs', async () => {
    const key = emulator.credentials.apiKeys.find((k) => k.key === DEMO_GATEWAY_API_KEY);
    if (!key) throw new Error('the demo key is missing');
    key.active = false;
    try {
      const response = await call(emulator, 'keyed', { headers: { [API_KEY]: key.key } });
      expect(response.status).toBe(401);
    } finally {
      key.active = true;
    }
  });
});
