/**
 * Binary round trips through `serverless offline`: audio and images come back byte for byte
 * (base64 through the API Gateway emulation and decoded again), and raw audio goes up intact.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { demoSecret } from '../../helpers/platform.ts';
import { sharedStackForSuite } from '../offline.ts';

const TOKEN = { authorization: 'Bearer demo-caller-token-for-local-use-only' };

describe('catalogue routes through serverless offline', () => {
  const { emulator, offline } = sharedStackForSuite();
  let credentials: Record<string, string>;
  const url = (path: string) => `${offline.baseUrl}${path}`;

  /** The emulator's own answer to the same upstream request, with the demo app's keys. */
  async function direct(path: string, init: RequestInit = {}) {
    const response = await fetch(new URL(path, emulator.url), {
      ...init,
      headers: { ...credentials, ...(init.headers as Record<string, string>) },
    });
    return Buffer.from(await response.arrayBuffer());
  }

  beforeAll(async () => {
    const app = (await demoSecret()).openapi!;
    credentials = {
      [emulator.headers.apiKeyId]: app.clientId,
      [emulator.headers.apiKey]: app.clientSecret,
    };
  });

  it('returns synthesized MP3 byte for byte', async () => {
    const response = await fetch(url('/tts'), {
      method: 'POST',
      headers: { ...TOKEN, 'content-type': 'application/json' },
      body: JSON.stringify({ speaker: 'clara', text: 'Hello there' }),
    });
    expect(response.status, offline.output()).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^audio\/mpeg/);
    const bytes = Buffer.from(await response.arrayBuffer());
    expect(bytes[0]).toBe(0xff); // MPEG frame sync
    const expected = await direct('/voice/v1/tts', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded; charset=UTF-8' },
      body: 'speaker=clara&text=Hello+there&speed=0',
    });
    expect(bytes.equals(expected)).toBe(true);
  });

  it('returns a static map PNG byte for byte', async () => {
    const query = 'w=300&h=200&center=127.1054,37.3595&level=16&format=png';
    const response = await fetch(url(`/maps/static?${query}`), { headers: TOKEN });
    expect(response.status, offline.output()).toBe(200);
    const bytes = Buffer.from(await response.arrayBuffer());
    expect(bytes.subarray(1, 4).toString('latin1')).toBe('PNG');
    expect(bytes.equals(await direct(`/map-static/v2/raster?${query}`))).toBe(true);
  });

  it('fetches a CAPTCHA image and verifies its answer', async () => {
    const keyResponse = await fetch(url('/captcha/image/key'), { headers: TOKEN });
    expect(keyResponse.status, offline.output()).toBe(200);
    const { key } = (await keyResponse.json()) as { key: string };
    const image = await fetch(url(`/captcha/image?key=${key}`), { headers: TOKEN });
    expect(image.headers.get('content-type')).toMatch(/^image\/jpeg/);
    const bytes = Buffer.from(await image.arrayBuffer());
    expect(bytes.subarray(0, 3).equals(Buffer.from([0xff, 0xd8, 0xff]))).toBe(true);
    expect(bytes.equals(await direct(`/captcha-bin/v1/ncaptcha?key=${key}`))).toBe(true);
    const verify = await fetch(url('/captcha/image/verify'), {
      method: 'POST',
      headers: { ...TOKEN, 'content-type': 'application/json' },
      body: JSON.stringify({ key, value: emulator.catalogue.captchaAnswer(key) }),
    });
    expect(await verify.json()).toMatchObject({ result: true });
  });

  it('uploads raw audio for recognition intact', async () => {
    const audio = await direct('/voice/v1/tts', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded; charset=UTF-8' },
      body: 'speaker=clara&text=hi&speed=0&format=wav',
    });
    const response = await fetch(url('/stt?lang=Eng'), {
      method: 'POST',
      headers: { ...TOKEN, 'content-type': 'application/octet-stream' },
      body: audio,
    });
    expect(response.status, offline.output()).toBe(200);
    expect(await response.json()).toHaveProperty('text');
    const received = emulator.requests.find((r) => r.url.startsWith('/recog/v1/stt'));
    expect(received?.bodyLength).toBe(audio.length);
  });
});
