import { describe, expect, it } from 'vitest';
import { emulatorForSuite } from '../../../helpers/emulator.ts';
import { CLIENT_ID, CLIENT_SECRET, catalogueFetch, jsonOf } from './helpers.ts';

const SHORTEN = '/util/v1/shorturl?url=https%3A%2F%2Fexample.com%2F';

describe('catalogue authentication (Client ID / Client Secret)', () => {
  const emulator = emulatorForSuite();

  it('lets the demo application through, whatever the case of the header names', async () => {
    const upper = await catalogueFetch(emulator, 'GET', SHORTEN);
    const lower = await fetch(`${emulator.url}${SHORTEN}`, {
      headers: { [emulator.headers.apiKeyId]: CLIENT_ID, [emulator.headers.apiKey]: CLIENT_SECRET },
    });

    expect(upper.status).toBe(200);
    expect(lower.status).toBe(200);
    expect(upper.headers.get('x-platform-apigw-response-origin')).toBe('ENDPOINT');
  });

  it.each([
    ['no credentials', { clientId: null, clientSecret: null }],
    ['no client secret', { clientSecret: null }],
    ['no client id', { clientId: null }],
  ])('refuses %s with 401/200 "missing"', async (_, options) => {
    const response = await catalogueFetch(emulator, 'GET', SHORTEN, options);

    expect(response.status).toBe(401);
    expect(response.headers.get('x-platform-apigw-response-origin')).toBe('APIGW');
    expect(await jsonOf(response)).toEqual({
      error: {
        errorCode: '200',
        message: 'Authentication Failed',
        details: 'Authentication information are missing.',
      },
    });
  });

  it.each([
    ['a wrong secret', { clientSecret: `${CLIENT_SECRET}x` }],
    ['an unknown client id', { clientId: 'someoneelse' }],
  ])('refuses %s with 401/200 "invalid"', async (_, options) => {
    const response = await catalogueFetch(emulator, 'POST', '/nmt/v1/translation', options);

    expect(response.status).toBe(401);
    expect(await jsonOf(response)).toEqual({
      error: {
        errorCode: '200',
        message: 'Authentication Failed',
        details: 'Invalid authentication information.',
      },
    });
  });

  it('answers the refusal in XML when asked', async () => {
    const response = await catalogueFetch(emulator, 'GET', SHORTEN, {
      clientId: null,
      accept: 'text/xml',
    });

    expect(response.status).toBe(401);
    expect(response.headers.get('content-type')).toContain('text/xml');
    expect(await response.text()).toContain('<errorCode>200</errorCode>');
  });

  it('takes credentials from the query only on image URLs (static map, CAPTCHA media)', async () => {
    const credentials = `X-PLATFORM-APIGW-API-KEY-ID=${CLIENT_ID}&X-PLATFORM-APIGW-API-KEY=${CLIENT_SECRET}`;
    const map = await fetch(
      `${emulator.url}/map-static/v2/raster?w=100&h=100&center=127.1,37.3&level=10&${credentials}`,
    );
    const shorten = await fetch(`${emulator.url}${SHORTEN}&${credentials}`);

    expect(map.status).toBe(200);
    expect(shorten.status).toBe(401);
  });

  it('follows credentials changed while the emulator runs', async () => {
    emulator.credentials.apps.push({ clientId: 'second', clientSecret: 'second-secret' });
    try {
      const response = await catalogueFetch(emulator, 'GET', SHORTEN, {
        clientId: 'second',
        clientSecret: 'second-secret',
      });
      expect(response.status).toBe(200);
    } finally {
      emulator.credentials.apps.pop();
    }
  });

  it('answers an unknown catalogue path 404/300 and a wrong method 404/300', async () => {
    const unknown = await catalogueFetch(emulator, 'GET', '/nmt/v2/translation');
    const wrongMethod = await catalogueFetch(emulator, 'GET', '/nmt/v1/translation');

    expect(unknown.status).toBe(404);
    expect(wrongMethod.status).toBe(404);
    expect(await jsonOf(wrongMethod)).toMatchObject({ error: { errorCode: '300' } });
  });
});
