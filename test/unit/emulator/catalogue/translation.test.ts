import { describe, expect, it } from 'vitest';
import { emulatorForSuite } from '../../../helpers/emulator.ts';
import { catalogueFetch, FORM, form, JSON_TYPE, jsonOf } from './helpers.ts';

describe('Papago translation', () => {
  const emulator = emulatorForSuite();
  const translate = (path: string, body: string, contentType = FORM) =>
    catalogueFetch(emulator, 'POST', path, { body, contentType });

  it('translates a form-encoded UTF-8 body in the platform response shape', async () => {
    const response = await translate(
      '/nmt/v1/translation',
      form({ source: 'ko', target: 'en', text: '만나서 반갑습니다.' }),
    );

    expect(response.status).toBe(200);
    expect(await jsonOf(response)).toEqual({
      message: {
        '@type': 'response',
        '@service': 'platformservice.nmt.proxy',
        '@version': '1.0.0',
        result: {
          srcLangType: 'ko',
          tarLangType: 'en',
          translatedText: 'Nice to meet you.',
          engineType: 'N2MT',
        },
      },
    });
  });

  it('takes JSON too, detects the source with auto, and marks text it cannot translate', async () => {
    const response = await translate(
      '/nmt/v1/translation',
      JSON.stringify({ source: 'auto', target: 'ja', text: '무엇이든', honorific: true }),
      JSON_TYPE,
    );

    expect(await jsonOf(response)).toMatchObject({
      message: {
        result: { srcLangType: 'ko', tarLangType: 'ja', translatedText: '[ja] 무엇이든' },
      },
    });
  });

  it.each([
    [{ target: 'en', text: 'a' }, 'N2MT01', 'source parameter is needed'],
    [{ source: 'xx', target: 'en', text: 'a' }, 'N2MT02', 'Unsupported source language'],
    [{ source: 'ko', text: 'a' }, 'N2MT03', 'target parameter is needed'],
    [{ source: 'ko', target: 'auto', text: 'a' }, 'N2MT04', 'Unsupported target language'],
    [{ source: 'ko', target: 'ko', text: 'a' }, 'N2MT05', 'source and target must be different'],
    [
      { source: 'vi', target: 'th', text: 'a' },
      'N2MT06',
      'There is no source-to-target translator',
    ],
    [{ source: 'ko', target: 'en' }, 'N2MT07', 'text parameter is needed'],
    [
      { source: 'ko', target: 'en', text: 'a'.repeat(5001) },
      'N2MT08',
      'text parameter exceeds max length',
    ],
  ])(
    'refuses %j with %s in the legacy shape, HTTP 400',
    async (fields, errorCode, errorMessage) => {
      const response = await translate('/nmt/v1/translation', form(fields));

      expect(response.status).toBe(400);
      expect(response.headers.get('x-platform-apigw-response-origin')).toBe('ENDPOINT');
      expect(await jsonOf(response)).toEqual({ errorMessage, errorCode });
    },
  );

  it('counts characters, not UTF-16 units: 5000 emoji are within the limit', async () => {
    const response = await translate(
      '/nmt/v1/translation',
      form({ source: 'en', target: 'ko', text: '😀'.repeat(5000) }),
    );

    expect(response.status).toBe(200);
  });

  it('serves the legacy SMT engine with TR codes and no auto detection', async () => {
    const ok = await translate(
      '/smt/v1/translation',
      form({ source: 'en', target: 'ko', text: 'Hello' }),
    );
    const auto = await translate(
      '/smt/v1/translation',
      form({ source: 'auto', target: 'ko', text: 'x' }),
    );
    const noText = await translate('/smt/v1/translation', form({ source: 'ko', target: 'en' }));

    expect(await jsonOf(ok)).toMatchObject({
      message: {
        '@service': 'platformservice.smt.proxy',
        result: { translatedText: '안녕하세요' },
      },
    });
    expect(await jsonOf(auto)).toEqual({
      errorMessage: 'Unsupported source language',
      errorCode: 'TR02',
    });
    expect(await jsonOf(noText)).toEqual({
      errorMessage: 'text parameter is needed',
      errorCode: 'TR07',
    });
  });

  it('refuses a JSON body that does not parse with 400/100', async () => {
    const response = await translate('/nmt/v1/translation', '{"source":', JSON_TYPE);

    expect(response.status).toBe(400);
    expect(await jsonOf(response)).toMatchObject({ error: { errorCode: '100' } });
  });
});
