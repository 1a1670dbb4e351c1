import { describe, expect, it } from 'vitest';
import {
  catalogueUnits,
  charactersOf,
  countsOf,
  ONE_REQUEST,
} from '../../../../lib/usage/units.ts';

describe('what a request spends', () => {
  it('spends the characters of text on translate (either engine) and tts', () => {
    expect(
      catalogueUnits('translate', {
        engine: 'smt',
        source: 'ko',
        target: 'en',
        text: '안녕하세요',
      }),
    ).toEqual({ requests: 1, characters: { api: 'translate', count: 5 } });
    expect(catalogueUnits('tts', { speaker: 'clara', text: 'Hello there' })).toEqual({
      requests: 1,
      characters: { api: 'tts', count: 11 },
    });
  });

  it('spends one request on every other API', () => {
    expect(catalogueUnits('maps', { query: 'Seoul' })).toBe(ONE_REQUEST);
    expect(catalogueUnits('stt', Buffer.from('audio'))).toBe(ONE_REQUEST);
    expect(catalogueUnits('translate', undefined)).toBe(ONE_REQUEST);
  });

  it('counts UTF-16 code units: what the input check counts, never fewer than billed', () => {
    expect(charactersOf('abc')).toBe(3);
    expect(charactersOf('한국어')).toBe(3);
    expect(charactersOf('😀')).toBe(2);
    expect(charactersOf('𠀀')).toBe(2); // a CJK ideograph outside the BMP
  });

  it('sorts units into counters', () => {
    expect(countsOf({ requests: 1, characters: { api: 'tts', count: 9 } })).toEqual({
      requests: 1,
      translate: 0,
      tts: 9,
    });
    expect(countsOf(ONE_REQUEST)).toEqual({ requests: 1, translate: 0, tts: 0 });
  });
});
