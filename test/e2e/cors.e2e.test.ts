/**
 * CORS as a stage configures it, through the local stack (serverless offline with
 * sls/plugins/offline-cors.cjs applying provider.httpApi.cors as API Gateway does): with
 * corsAllowedOrigins, a preflight from an allowed origin is answered 204 with what it may send,
 * answers to it carry Access-Control-Allow-Origin, and another origin gets none of it. (By
 * default, none: local-stack/cors.ts.)
 */
import { describe, expect, it } from 'vitest';
import { APP, corsHeadersOf, get, OTHER, preflight } from './cors-requests.js';
import { offlineStackForSuite } from './offline.js';

describe('CORS with corsAllowedOrigins', () => {
  const { offline } = offlineStackForSuite({ params: [`corsAllowedOrigins=${APP}`] });

  it('answers a preflight from an allowed origin 204, with what it may send; no credentials', async () => {
    const response = await preflight(offline.baseUrl, APP);
    expect(response.status, offline.output()).toBe(204);
    const headers = corsHeadersOf(response);
    expect(headers['access-control-allow-origin']).toBe(APP);
    expect(headers['access-control-allow-methods']?.split(',')).toContain('GET');
    expect(headers['access-control-allow-headers']?.split(',')).toContain('Authorization');
    expect(headers['access-control-max-age']).toBe('600');
    expect(headers['access-control-allow-credentials']).toBeUndefined();
  });

  it('answers a preflight from another origin with no CORS header', async () => {
    const response = await preflight(offline.baseUrl, OTHER);
    expect(response.status).toBe(204);
    expect(corsHeadersOf(response)).toEqual({});
  });

  it('lets an allowed origin read answers, errors too; another origin none', async () => {
    const ok = await get(offline.baseUrl, APP);
    expect(ok.status).toBe(200);
    await ok.arrayBuffer();
    expect(corsHeadersOf(ok)).toMatchObject({ 'access-control-allow-origin': APP });
    expect(corsHeadersOf(ok)['access-control-expose-headers']).toMatch(/Retry-After/);
    const refused = await get(offline.baseUrl, APP, 'not-a-known-token');
    expect(refused.status).toBe(401);
    await refused.arrayBuffer();
    expect(refused.headers.get('access-control-allow-origin')).toBe(APP);
    const other = await get(offline.baseUrl, OTHER);
    expect(other.status).toBe(200);
    await other.arrayBuffer();
    expect(corsHeadersOf(other)).toEqual({});
  });
});
