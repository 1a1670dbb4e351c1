import { describe, expect, it } from 'vitest';
import {
  AUTH_DETAILS,
  demoCredentials,
  INACTIVE_ACCESS_KEY,
  INACTIVE_API_KEY,
  INACTIVE_SECRET_KEY,
  MAX_CLOCK_SKEW_MS,
} from '../../../../emulator/index.ts';
import { emulatorForSuite } from '../../../helpers/emulator.ts';
import { DEMO_ACCESS_KEY, json, signedFetch, signedHeaders } from '../helpers.ts';

// A fixed gateway clock makes the 5-minute boundary exact.
const GATEWAY_NOW = 1_800_000_000_000;
const LIST = '/api/v1/jobs?page=1&limit=10';

function authFailure(details: string) {
  return { error: { errorCode: '200', message: 'Authentication Failed', details } };
}

describe('gateway signature v2 authentication', () => {
  const emulator = emulatorForSuite({ now: () => GATEWAY_NOW });
  const at = (offsetMs: number) => String(GATEWAY_NOW + offsetMs);

  it('lets a correctly signed call with the API key through', async () => {
    const response = await signedFetch(emulator, 'GET', LIST, { timestamp: at(0) });

    expect(response.status).toBe(200);
    expect(response.headers.get('x-platform-apigw-response-origin')).toBe('ENDPOINT');
  });

  it.each([
    ['timestamp', 'x-platform-apigw-timestamp'],
    ['access key', 'x-platform-iam-access-key'],
    ['signature', 'x-platform-apigw-signature-v2'],
  ])('refuses a call without the %s header', async (_, header) => {
    const response = await signedFetch(emulator, 'GET', LIST, { timestamp: at(0), omit: [header] });

    expect(response.status).toBe(401);
    expect(response.headers.get('content-type')).toBe('application/json;charset=UTF-8');
    expect(response.headers.get('x-platform-apigw-response-origin')).toBe('APIGW');
    expect(await json(response)).toEqual(authFailure(AUTH_DETAILS.missing));
  });

  it('refuses a wrong signature', async () => {
    const response = await signedFetch(emulator, 'GET', LIST, {
      timestamp: at(0),
      signature: 'tI0rApDF6tIj6sZ8L/wayzzXL171Bqmj9yZYC/U02eE=',
    });

    expect(response.status).toBe(401);
    expect(await json(response)).toEqual(authFailure(AUTH_DETAILS.badSignature));
  });

  it('refuses a signature over another query string than the one sent', async () => {
    const response = await fetch(`${emulator.url}/api/v1/jobs?limit=10&page=1`, {
      headers: signedHeaders(emulator, 'GET', LIST, { timestamp: at(0) }),
    });

    expect(response.status).toBe(401);
    expect(await json(response)).toEqual(authFailure(AUTH_DETAILS.badSignature));
  });

  it.each([
    ['4:59.999 behind', -(MAX_CLOCK_SKEW_MS - 1)],
    ['4:59.999 ahead', MAX_CLOCK_SKEW_MS - 1],
  ])('accepts a timestamp %s the gateway clock', async (_, offset) => {
    const response = await signedFetch(emulator, 'GET', LIST, { timestamp: at(offset) });

    expect(response.status).toBe(200);
  });

  it.each([
    ['exactly 5 minutes behind', -MAX_CLOCK_SKEW_MS],
    ['exactly 5 minutes ahead', MAX_CLOCK_SKEW_MS],
    ['an hour behind', -60 * 60 * 1000],
  ])('refuses a timestamp %s the gateway clock', async (_, offset) => {
    const response = await signedFetch(emulator, 'GET', LIST, { timestamp: at(offset) });

    expect(response.status).toBe(401);
    expect(await json(response)).toEqual(authFailure(AUTH_DETAILS.skewedTimestamp));
  });

  it.each([
    ['seconds instead of milliseconds', String(GATEWAY_NOW / 1000)],
    ['a decimal fraction', `${GATEWAY_NOW}.5`],
    ['an ISO date', new Date(GATEWAY_NOW).toISOString()],
    ['a negative number', `-${GATEWAY_NOW}`],
  ])('refuses a timestamp that is %s', async (_, timestamp) => {
    const response = await signedFetch(emulator, 'GET', LIST, { timestamp });
    const body = (await json(response)) as { error: { details: string } };

    expect(response.status).toBe(401);
    expect(body.error.details).toMatch(/^Invalid timestamp/);
  });

  it('refuses an unknown access key', async () => {
    const response = await signedFetch(emulator, 'GET', LIST, {
      timestamp: at(0),
      accessKey: 'UNKNOWNACCESSKEY0001',
      secretKey: 'whatever',
    });

    expect(response.status).toBe(401);
    expect(await json(response)).toEqual(authFailure(AUTH_DETAILS.unknownAccessKey));
  });

  it('refuses an inactive access key even when the signature is right', async () => {
    const response = await signedFetch(emulator, 'GET', LIST, {
      timestamp: at(0),
      accessKey: INACTIVE_ACCESS_KEY,
      secretKey: INACTIVE_SECRET_KEY,
    });

    expect(response.status).toBe(401);
    expect(await json(response)).toEqual(authFailure(AUTH_DETAILS.inactiveAccessKey));
  });

  it('refuses a key deactivated while the emulator runs', async () => {
    const pair = emulator.credentials.accessKeys.find((key) => key.accessKey === DEMO_ACCESS_KEY);
    if (!pair) throw new Error('demo access key missing');
    pair.active = false;
    try {
      const response = await signedFetch(emulator, 'GET', LIST, { timestamp: at(0) });

      expect(response.status).toBe(401);
    } finally {
      pair.active = true;
    }
  });

  it.each([
    ['missing', null, AUTH_DETAILS.missingApiKey],
    ['unknown', 'not-a-gateway-key', AUTH_DETAILS.unknownApiKey],
    ['inactive', INACTIVE_API_KEY, AUTH_DETAILS.inactiveApiKey],
  ])('refuses a %s API key', async (_, apiKey, details) => {
    const response = await signedFetch(emulator, 'GET', LIST, { timestamp: at(0), apiKey });

    expect(response.status).toBe(401);
    expect(await json(response)).toEqual(authFailure(details));
  });

  it('reads header names case-insensitively', async () => {
    const headers = Object.fromEntries(
      Object.entries(signedHeaders(emulator, 'GET', LIST, { timestamp: at(0) })).map(
        ([name, value]) => [name.toUpperCase(), value],
      ),
    );

    const response = await fetch(`${emulator.url}${LIST}`, { headers });

    expect(response.status).toBe(200);
  });

  it('authenticates before validating the route input', async () => {
    const response = await signedFetch(emulator, 'GET', '/api/v1/jobs?page=zero', {
      timestamp: at(0),
      omit: ['x-platform-apigw-signature-v2'],
    });

    expect(response.status).toBe(401);
  });

  it('refuses before touching the job: an unsigned cancel leaves the reservation alone', async () => {
    const response = await fetch(`${emulator.url}/api/v1/jobs/2810017/cancel`, { method: 'PATCH' });

    expect(response.status).toBe(401);
    expect(emulator.scanJobs.get('2810017')?.status).toBe('Reservation');
  });
});

describe('gateway authentication with another vendor word and no API key required', () => {
  const emulator = emulatorForSuite({
    vendor: 'NCP',
    credentials: { ...demoCredentials(), requireApiKey: false },
  });

  it('uses x-ncp-* header names', async () => {
    const response = await signedFetch(emulator, 'GET', LIST, { apiKey: null });

    expect(emulator.headers.signature).toBe('x-ncp-apigw-signature-v2');
    expect(response.status).toBe(200);
    expect(response.headers.get('x-ncp-apigw-response-origin')).toBe('ENDPOINT');
  });

  it('does not accept the default vendor word in its place', async () => {
    const response = await fetch(`${emulator.url}${LIST}`, {
      headers: {
        'x-platform-apigw-timestamp': String(Date.now()),
        'x-platform-iam-access-key': DEMO_ACCESS_KEY,
        'x-platform-apigw-signature-v2': 'irrelevant',
      },
    });

    expect(response.status).toBe(401);
  });
});
