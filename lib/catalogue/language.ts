/**
 * Language APIs (one function, `catalogueGroup` below): Papago translation (NMT and the legacy SMT),
 * speech synthesis (the legacy CSS endpoint `/voice/v1/tts`) and speech recognition (CSR).
 */
import * as z from 'zod/mini';
import { int } from '../core/schemas.ts';
import { catalogueGroup, defineEntry } from './entry.ts';
import { oneOf, strictInput, text } from './fields.ts';

const TRANSLATION_TARGETS = [
  'ko',
  'en',
  'ja',
  'zh-CN',
  'zh-TW',
  'vi',
  'th',
  'id',
  'fr',
  'es',
  'ru',
  'de',
  'it',
] as const;
const TRANSLATION_SOURCES = ['auto', ...TRANSLATION_TARGETS] as const;
/** Papago counts at most 5000 characters per call (N2MT08 beyond). */
const MAX_TRANSLATION_CHARS = 5000;

const translateBodySchema = strictInput({
  engine: z._default(oneOf(['nmt', 'smt']), 'nmt'),
  source: oneOf(TRANSLATION_SOURCES),
  target: oneOf(TRANSLATION_TARGETS),
  text: text(1, MAX_TRANSLATION_CHARS),
  honorific: z.optional(z.boolean('expected true or false')),
  glossaryKey: z.optional(text(1, 100)),
}).check(
  z.refine((body) => body.source !== body.target, {
    message: 'source and target must be different',
    path: ['target'],
  }),
  z.refine((body) => body.engine === 'nmt' || body.honorific === undefined, {
    message: 'honorific is an NMT option',
    path: ['honorific'],
  }),
  z.refine((body) => body.engine === 'nmt' || body.glossaryKey === undefined, {
    message: 'glossaryKey is an NMT option',
    path: ['glossaryKey'],
  }),
);
type TranslateBody = z.infer<typeof translateBodySchema>;

/** Speakers of the legacy `/voice/v1/tts` (CSS) endpoint. */
const TTS_SPEAKERS = [
  'mijin',
  'jinho',
  'clara',
  'matt',
  'shinji',
  'meimei',
  'liangliang',
  'jose',
  'carmen',
] as const;
const MAX_TTS_CHARS = 2000;

const ttsBodySchema = strictInput({
  speaker: oneOf(TTS_SPEAKERS),
  text: text(1, MAX_TTS_CHARS),
  speed: z.optional(int(-5, 5)),
  volume: z.optional(int(-5, 5)),
  pitch: z.optional(int(-5, 5)),
  format: z.optional(oneOf(['mp3', 'wav'])),
});
type TtsBody = z.infer<typeof ttsBodySchema>;

const STT_LANGUAGES = ['Kor', 'Eng', 'Jpn', 'Chn'] as const;
const sttQuerySchema = strictInput({ lang: oneOf(STT_LANGUAGES) });
type SttQuery = z.infer<typeof sttQuerySchema>;

export const languageEntries = catalogueGroup('catalogueLanguage', [
  defineEntry<TranslateBody>({
    id: 'translate',
    api: 'translate',
    method: 'POST',
    path: '/translate',
    summary: 'Translate text (Papago NMT, or the legacy SMT engine)',
    upstream: { method: 'POST', paths: ['/nmt/v1/translation', '/smt/v1/translation'] },
    sends: 'form',
    answers: { kind: 'json', contentTypes: ['application/json'] },
    // Metered per character: a repeat after the platform saw the call is billed twice.
    idempotent: false,
    body: translateBodySchema,
    toUpstream: ({ body }) => {
      const params: [string, string][] = [
        ['source', body.source],
        ['target', body.target],
        ['text', body.text],
      ];
      if (body.honorific !== undefined) params.push(['honorific', String(body.honorific)]);
      if (body.glossaryKey !== undefined) params.push(['glossaryKey', body.glossaryKey]);
      return { path: `/${body.engine}/v1/translation`, params };
    },
  }),
  defineEntry<TtsBody>({
    id: 'tts',
    api: 'tts',
    method: 'POST',
    path: '/tts',
    summary: 'Synthesise speech (MP3, or WAV with format=wav)',
    upstream: { method: 'POST', paths: ['/voice/v1/tts'] },
    sends: 'form',
    answers: { kind: 'binary', contentTypes: ['audio/mpeg', 'audio/wav'] },
    idempotent: false,
    body: ttsBodySchema,
    toUpstream: ({ body }) => {
      // The legacy endpoint always receives a speed (0 = normal), as its clients send it.
      const params: [string, string][] = [
        ['speaker', body.speaker],
        ['speed', String(body.speed ?? 0)],
        ['text', body.text],
      ];
      if (body.volume !== undefined) params.push(['volume', String(body.volume)]);
      if (body.pitch !== undefined) params.push(['pitch', String(body.pitch)]);
      if (body.format !== undefined) params.push(['format', body.format]);
      return { params };
    },
  }),
  defineEntry<undefined, SttQuery>({
    id: 'stt',
    api: 'stt',
    method: 'POST',
    path: '/stt',
    summary: 'Recognise speech in raw audio (at most 60 s)',
    description:
      'The body is the audio itself, Content-Type application/octet-stream. Through API ' +
      'Gateway and Lambda a body can be at most about 4.4 MB of audio (6 MB of base64).',
    upstream: { method: 'POST', paths: ['/recog/v1/stt'] },
    sends: 'raw',
    answers: { kind: 'json', contentTypes: ['application/json'] },
    idempotent: false,
    query: sttQuerySchema,
    bytes: ['application/octet-stream'],
    toUpstream: ({ bytes, query }) => ({ params: [['lang', query.lang]], raw: bytes }),
  }),
]);
