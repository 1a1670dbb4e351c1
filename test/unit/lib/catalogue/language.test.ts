/** What the translation, speech synthesis and speech recognition routes accept and refuse before anything is sent. */
import { describe, expect, it } from 'vitest';
import { languageEntries } from '../../../../lib/catalogue/language.ts';
import { type Accepted, checkInputSchemas, type Refused, schemaOf } from './input-schemas.ts';

const text = (n: number, c = 'a') => c.repeat(n);

const accepted: Accepted[] = [
  ['POST /translate', 'body', { source: 'ko', target: 'en', text: 'a' }],
  [
    'POST /translate',
    'body',
    { source: 'auto', target: 'zh-TW', text: text(5000), honorific: false },
  ],
  ['POST /translate', 'body', { engine: 'smt', source: 'en', target: 'ko', text: '한' }],
  ['POST /tts', 'body', { speaker: 'mijin', text: text(2000) }],
  [
    'POST /tts',
    'body',
    { speaker: 'carmen', text: 'a', speed: -5, volume: 5, pitch: 0, format: 'wav' },
  ],
  ['POST /stt', 'query', { lang: 'Chn' }],
];

const refused: Refused[] = [
  [
    'translation text empty',
    'POST /translate',
    'body',
    { source: 'ko', target: 'en', text: '' },
    'text',
  ],
  [
    'translation text over 5000',
    'POST /translate',
    'body',
    { source: 'ko', target: 'en', text: text(5001) },
    'text',
  ],
  [
    'unknown source language',
    'POST /translate',
    'body',
    { source: 'xx', target: 'en', text: 'a' },
    'source',
  ],
  [
    'auto as target',
    'POST /translate',
    'body',
    { source: 'ko', target: 'auto', text: 'a' },
    'target',
  ],
  [
    'source equal to target',
    'POST /translate',
    'body',
    { source: 'en', target: 'en', text: 'a' },
    'target',
  ],
  [
    'unknown engine',
    'POST /translate',
    'body',
    { engine: 'gpt', source: 'ko', target: 'en', text: 'a' },
    'engine',
  ],
  [
    'honorific with SMT',
    'POST /translate',
    'body',
    { engine: 'smt', source: 'ko', target: 'en', text: 'a', honorific: true },
    'honorific',
  ],
  [
    'honorific as text',
    'POST /translate',
    'body',
    { source: 'ko', target: 'en', text: 'a', honorific: 'true' },
    'honorific',
  ],
  [
    'an unknown member',
    'POST /translate',
    'body',
    { source: 'ko', target: 'en', text: 'a', sorce: 'ko' },
    '',
  ],
  ['TTS text empty', 'POST /tts', 'body', { speaker: 'clara', text: '' }, 'text'],
  ['TTS text over 2000', 'POST /tts', 'body', { speaker: 'clara', text: text(2001) }, 'text'],
  ['unknown speaker', 'POST /tts', 'body', { speaker: 'nara', text: 'a' }, 'speaker'],
  ['speed over 5', 'POST /tts', 'body', { speaker: 'clara', text: 'a', speed: 6 }, 'speed'],
  ['pitch under -5', 'POST /tts', 'body', { speaker: 'clara', text: 'a', pitch: -6 }, 'pitch'],
  [
    'volume not an integer',
    'POST /tts',
    'body',
    { speaker: 'clara', text: 'a', volume: 1.5 },
    'volume',
  ],
  ['format ogg', 'POST /tts', 'body', { speaker: 'clara', text: 'a', format: 'ogg' }, 'format'],
  ['no STT language', 'POST /stt', 'query', {}, 'lang'],
  ['lower-case STT language', 'POST /stt', 'query', { lang: 'kor' }, 'lang'],
];

describe('language input schemas', () => {
  checkInputSchemas(languageEntries, accepted, refused);

  it('defaults the translation engine to NMT', () => {
    expect(
      schemaOf(languageEntries, 'POST /translate', 'body').parse({
        source: 'ko',
        target: 'en',
        text: 'a',
      }),
    ).toMatchObject({ engine: 'nmt' });
  });
});
