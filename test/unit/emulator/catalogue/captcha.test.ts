import jpeg from 'jpeg-js';
import { describe, expect, it } from 'vitest';
import { CAPTCHA_IMAGE, CAPTCHA_TEXT_LEFT } from '../../../../emulator/catalogue/captcha-media.ts';
import { startEmulator } from '../../../../emulator/index.ts';
import { GLYPH_HEIGHT, GLYPH_WIDTH, GLYPHS, glyphPixel } from '../../../../emulator/media/font.ts';
import { emulatorForSuite } from '../../../helpers/emulator.ts';
import { decodeDtmf, readPcmWav } from '../media/media-checks.ts';
import { bytesOf, CLIENT_ID, CLIENT_SECRET, catalogueFetch, jsonOf } from './helpers.ts';

/** Reads the characters back out of the picture: dark font cells matched against each glyph. */
function readCaptcha(file: Buffer, length: number): string {
  const image = jpeg.decode(file);
  const { scale, spacing, top } = CAPTCHA_IMAGE;
  const dark = (x: number, y: number) => (image.data[(y * image.width + x) * 4] ?? 255) < 110;
  let text = '';
  for (let index = 0; index < length; index++) {
    const left = CAPTCHA_TEXT_LEFT + index * (GLYPH_WIDTH + spacing) * scale;
    const cell = (column: number, row: number) =>
      dark(left + column * scale + scale / 2, top + row * scale + scale / 2);
    const mismatches = Object.entries(GLYPHS).map(([character, glyph]) => {
      let wrong = 0;
      for (let row = 0; row < GLYPH_HEIGHT; row++) {
        for (let column = 0; column < GLYPH_WIDTH; column++) {
          if (cell(column, row) !== glyphPixel(glyph, column, row)) wrong++;
        }
      }
      return [character, wrong] as const;
    });
    mismatches.sort((a, b) => a[1] - b[1]);
    text += mismatches[0]?.[0] ?? '?';
  }
  return text;
}

describe('CAPTCHA', () => {
  const emulator = emulatorForSuite();
  const get = (target: string) => catalogueFetch(emulator, 'GET', target);
  const issue = async (path: string) =>
    ((await jsonOf(await get(`${path}?code=0`))) as { key: string }).key;

  describe('image', () => {
    it('issues 16-character keys, code 0 being the default', async () => {
      const explicit = await issue('/captcha/v1/nkey');
      const implicit = (await jsonOf(await get('/captcha/v1/nkey'))) as { key: string };

      expect(explicit).toMatch(/^[A-Za-z0-9]{16}$/);
      expect(implicit.key).toMatch(/^[A-Za-z0-9]{16}$/);
      expect(implicit.key).not.toBe(explicit);
    });

    it('answers a JPEG that shows the answer, different for every key', async () => {
      const keys = [await issue('/captcha/v1/nkey'), await issue('/captcha/v1/nkey')];
      const images = await Promise.all(
        keys.map(async (key) => {
          const response = await get(`/captcha-bin/v1/ncaptcha?key=${key}`);
          expect(response.headers.get('content-type')).toBe('image/jpeg');
          return bytesOf(response);
        }),
      );

      for (const [index, key] of keys.entries()) {
        const answer = emulator.catalogue.captchaAnswer(key) ?? '';
        expect(answer).toMatch(/^[A-Z2-9]{6}$/);
        expect(readCaptcha(images[index] ?? Buffer.alloc(0), answer.length)).toBe(answer);
        expect(jpeg.decode(images[index] ?? Buffer.alloc(0))).toMatchObject({
          width: 200,
          height: 70,
        });
      }
      expect(images[0]?.equals(images[1] ?? Buffer.alloc(0))).toBe(false);
    });

    it('serves the image with credentials in the query, for an <img> tag', async () => {
      const key = await issue('/captcha/v1/nkey');
      const response = await fetch(
        `${emulator.url}/captcha-bin/v1/ncaptcha?key=${key}&X-PLATFORM-APIGW-API-KEY-ID=${CLIENT_ID}&X-PLATFORM-APIGW-API-KEY=${CLIENT_SECRET}`,
      );

      expect(response.status).toBe(200);
    });

    it('compares once: the right answer is true (any case), then the key is spent', async () => {
      const key = await issue('/captcha/v1/nkey');
      const answer = emulator.catalogue.captchaAnswer(key) ?? '';

      const first = await get(`/captcha/v1/nkey?code=1&key=${key}&value=${answer.toLowerCase()}`);
      const again = await get(`/captcha/v1/nkey?code=1&key=${key}&value=${answer}`);

      expect(first.status).toBe(200);
      expect(await jsonOf(first)).toEqual({ result: true, responseTime: expect.any(Number) });
      expect(again.status).toBe(400);
      expect(await jsonOf(again)).toEqual({
        result: false,
        errorMessage: 'Invalid key.',
        errorCode: 'CT001',
      });
      expect(emulator.catalogue.captchaAnswer(key)).toBeUndefined();
    });

    it('answers false for a wrong value and spends the key too', async () => {
      const key = await issue('/captcha/v1/nkey');
      const wrong = await get(`/captcha/v1/nkey?code=1&key=${key}&value=nope`);
      const image = await get(`/captcha-bin/v1/ncaptcha?key=${key}`);

      expect(await jsonOf(wrong)).toMatchObject({ result: false });
      expect(image.status).toBe(400);
    });

    it.each([
      ['an unknown key', '/captcha/v1/nkey?code=1&key=AAAAAAAAAAAAAAAA&value=x'],
      ['no key', '/captcha/v1/nkey?code=1&value=x'],
      ['an unknown key for the image', '/captcha-bin/v1/ncaptcha?key=AAAAAAAAAAAAAAAA'],
    ])('refuses %s with 400 CT001', async (_, target) => {
      const response = await get(target);

      expect(response.status).toBe(400);
      expect(await jsonOf(response)).toEqual({
        result: false,
        errorMessage: 'Invalid key.',
        errorCode: 'CT001',
      });
    });

    it('refuses an unknown code or a missing value with 400/100, without spending the key', async () => {
      const key = await issue('/captcha/v1/nkey');

      expect((await get('/captcha/v1/nkey?code=2')).status).toBe(400);
      expect(await jsonOf(await get(`/captcha/v1/nkey?code=1&key=${key}`))).toMatchObject({
        error: { errorCode: '100' },
      });
      expect(emulator.catalogue.captchaAnswer(key)).toBeDefined();
    });

    it('tells the answer on the control route, and 404 for an unknown key', async () => {
      const key = await issue('/captcha/v1/nkey');
      const known = await fetch(`${emulator.url}/__emulator/captcha/${key}`);
      const unknown = await fetch(`${emulator.url}/__emulator/captcha/nope`);

      expect(await known.json()).toEqual({ key, answer: emulator.catalogue.captchaAnswer(key) });
      expect(unknown.status).toBe(404);
    });
  });

  describe('audio', () => {
    it.each(['/scaptcha/v1/nkey', '/scaptcha/v1/skey'])(
      'issues keys on %s whose WAV spells the answer in DTMF',
      async (path) => {
        const key = await issue(path);
        const response = await get(`/scaptcha-bin/v1/scaptcha?key=${key}`);
        const pcm = readPcmWav(await bytesOf(response));
        const answer = emulator.catalogue.captchaAnswer(key);

        expect(response.headers.get('content-type')).toBe('audio/wav');
        expect(pcm).toMatchObject({ channels: 1, bitsPerSample: 16, sampleRate: 8000 });
        expect(answer).toMatch(/^\d{6}$/);
        expect(decodeDtmf(pcm)).toBe(answer);
      },
    );

    it('compares on either key path, once', async () => {
      const key = await issue('/scaptcha/v1/nkey');
      const answer = emulator.catalogue.captchaAnswer(key) ?? '';

      const first = await get(`/scaptcha/v1/skey?code=1&key=${key}&value=${answer}`);
      const again = await get(`/scaptcha/v1/nkey?code=1&key=${key}&value=${answer}`);

      expect(await jsonOf(first)).toMatchObject({ result: true });
      expect(again.status).toBe(400);
    });

    it('keeps image and audio keys apart', async () => {
      const imageKey = await issue('/captcha/v1/nkey');
      const audioKey = await issue('/scaptcha/v1/nkey');

      expect((await get(`/scaptcha-bin/v1/scaptcha?key=${imageKey}`)).status).toBe(400);
      expect((await get(`/captcha-bin/v1/ncaptcha?key=${audioKey}`)).status).toBe(400);
    });
  });

  it('reports the response time in seconds with 2 decimals', async () => {
    let now = 1_800_000_000_000;
    const clocked = await startEmulator({ quiet: true, now: () => now });
    try {
      const issueResponse = await catalogueFetch(clocked, 'GET', '/captcha/v1/nkey?code=0');
      const { key } = (await jsonOf(issueResponse)) as { key: string };
      now += 22_906;
      const compared = await catalogueFetch(
        clocked,
        'GET',
        `/captcha/v1/nkey?code=1&key=${key}&value=x`,
      );

      expect(await jsonOf(compared)).toEqual({ result: false, responseTime: 22.91 });
    } finally {
      await clocked.close();
    }
  });

  it('lets a key lapse after 7200 s', async () => {
    let now = 1_800_000_000_000;
    const clocked = await startEmulator({ quiet: true, now: () => now });
    try {
      const { key } = (await jsonOf(await catalogueFetch(clocked, 'GET', '/captcha/v1/nkey'))) as {
        key: string;
      };
      now += 7200_001;
      const compared = await catalogueFetch(
        clocked,
        'GET',
        `/captcha/v1/nkey?code=1&key=${key}&value=x`,
      );

      expect(compared.status).toBe(400);
    } finally {
      await clocked.close();
    }
  });
});
