import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../emulator/index.js';
import { DEMO_SECRETS_FILE } from '../../scripts/start.js';
import { type RunningOffline, startOffline } from './offline.js';

// The first esbuild build of all functions plus serverless offline's start-up.
const BOOT_TIMEOUT_MS = 180_000;

describe('serverless offline smoke', () => {
  let emulator: Awaited<ReturnType<typeof startEmulator>> | undefined;
  let offline: RunningOffline | undefined;

  beforeAll(async () => {
    emulator = await startEmulator({ port: 0, vendor: 'platform', quiet: true });
    offline = await startOffline({
      SCAN_BASE_URL: emulator.url,
      OPENAPI_BASE_URL: emulator.url,
      GATEWAY_VENDOR: 'platform',
      SECRETS_SOURCE: 'file',
      SECRETS_FILE: DEMO_SECRETS_FILE,
    });
  }, BOOT_TIMEOUT_MS);

  afterAll(async () => {
    await offline?.stop();
    await emulator?.close();
  }, 30_000);

  it('answers GET /health with 200', async () => {
    const response = await fetch(`${offline!.baseUrl}/health`);
    expect(response.status, offline!.output()).toBe(200);
  });

  it('answers an unknown route with the 404 envelope', async () => {
    const response = await fetch(`${offline!.baseUrl}/no-such-route`);
    expect(response.status, offline!.output()).toBe(404);
    // serverless offline (hapi) appends "; charset=utf-8" to what the function sets
    expect(response.headers.get('content-type')).toMatch(/^application\/json\b/);
    const body = (await response.json()) as { error?: Record<string, unknown> };
    expect(Object.keys(body)).toEqual(['error']);
    const { errorCode, message, ...rest } = body.error ?? {};
    expect(errorCode).toBe('300');
    expect(typeof message).toBe('string');
    // contract section 5: errorCode, message and at most `details`, nothing else
    expect(Object.keys(rest).filter((key) => key !== 'details')).toEqual([]);
  });
});
