/**
 * CORS as a stage configures it, through the local stack (serverless offline with
 * sls/plugins/offline-cors.ts applying provider.httpApi.cors as API Gateway does): by default
 * no answer carries a CORS header and a preflight is an OPTIONS request like any other. (With a
 * stage's corsAllowedOrigins: stage-settings.e2e.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { APP, corsHeadersOf, get, OTHER, preflight } from '../cors-requests.ts';
import { sharedStackForSuite } from '../offline.ts';

describe('CORS by default: none', () => {
  const { offline } = sharedStackForSuite();

  it('answers a preflight as any OPTIONS request (405 with Allow), with no CORS header', async () => {
    const response = await preflight(offline.baseUrl, APP);
    expect(response.status, offline.output()).toBe(405);
    expect(response.headers.get('allow')).toBe('GET');
    expect(((await response.json()) as { error: { errorCode: string } }).error.errorCode).toBe(
      '100',
    );
    expect(corsHeadersOf(response)).toEqual({});
  });

  it('adds no CORS header to an answer, whatever the origin', async () => {
    for (const origin of [APP, OTHER]) {
      const response = await get(offline.baseUrl, origin);
      expect(response.status).toBe(200);
      await response.arrayBuffer();
      expect(corsHeadersOf(response)).toEqual({});
    }
  });
});
