/**
 * Papago translation: NMT (`/nmt/v1/translation`) and the legacy SMT (`/smt/v1/translation`).
 * The "translation" is a tiny phrase book with a marked fallback,
 * so answers are deterministic.
 */
import type { GatewayRequest, GatewayResponse } from '../core/types.ts';
import type { ApiRoute } from '../gateway/api-module.ts';
import type { Authenticator } from '../gateway/iam-auth.ts';
import { bodyParams, type Parameters } from './params.ts';
import { badRequest, endpointJson, legacyError } from './responses.ts';

const MAX_TRANSLATION_CHARS = 5000;

interface Engine {
  readonly path: string;
  /** N2MT for NMT, TR for SMT. */
  readonly codePrefix: string;
  readonly service: string;
  readonly engineType: string;
  readonly sources: ReadonlySet<string>;
  readonly targets: ReadonlySet<string>;
  readonly hasTranslator: (source: string, target: string) => boolean;
}

const NMT_TARGETS = [
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
];
const CJK = new Set(['ja', 'zh-CN', 'zh-TW']);

// Papago pairs every language with Korean or English, and the CJK languages with each other.
const nmtHasTranslator = (source: string, target: string): boolean =>
  [source, target].some((language) => language === 'ko' || language === 'en') ||
  (CJK.has(source) && CJK.has(target));

const SMT_LANGUAGES = ['ko', 'en', 'ja', 'zh-CN', 'zh-TW'];

const NMT: Engine = {
  path: '/nmt/v1/translation',
  codePrefix: 'N2MT',
  service: 'platformservice.nmt.proxy',
  engineType: 'N2MT',
  sources: new Set(['auto', ...NMT_TARGETS]),
  targets: new Set(NMT_TARGETS),
  hasTranslator: nmtHasTranslator,
};

// [INFERRED] the legacy engine translated to and from Korean only, and had no detection.
const SMT: Engine = {
  path: '/smt/v1/translation',
  codePrefix: 'TR',
  service: 'platformservice.smt.proxy',
  engineType: 'SMT',
  sources: new Set(SMT_LANGUAGES),
  targets: new Set(SMT_LANGUAGES),
  hasTranslator: (source, target) => source === 'ko' || target === 'ko',
};

const MESSAGES: Readonly<Record<string, string>> = {
  '01': 'source parameter is needed',
  '02': 'Unsupported source language',
  '03': 'target parameter is needed',
  '04': 'Unsupported target language',
  '05': 'source and target must be different',
  '06': 'There is no source-to-target translator',
  '07': 'text parameter is needed',
  '08': 'text parameter exceeds max length',
};

function refusal(engine: Engine, number: keyof typeof MESSAGES): GatewayResponse {
  return legacyError(400, `${engine.codePrefix}${number}`, MESSAGES[number] ?? '');
}

/** Papago's language detection, reduced to the script of the first letters. */
function detectLanguage(text: string): string {
  if (/\p{Script=Hangul}/u.test(text)) return 'ko';
  if (/[\p{Script=Hiragana}\p{Script=Katakana}]/u.test(text)) return 'ja';
  if (/\p{Script=Han}/u.test(text)) return 'zh-CN';
  if (/\p{Script=Thai}/u.test(text)) return 'th';
  if (/\p{Script=Cyrillic}/u.test(text)) return 'ru';
  return 'en';
}

/** The phrase book: the same meaning in each language it knows. */
const PHRASES: readonly Readonly<Record<string, string>>[] = [
  { ko: '안녕하세요', en: 'Hello', ja: 'こんにちは', 'zh-CN': '你好' },
  { ko: '만나서 반갑습니다.', en: 'Nice to meet you.', ja: 'はじめまして。' },
  { ko: '감사합니다', en: 'Thank you', ja: 'ありがとうございます', 'zh-CN': '谢谢' },
  { ko: '좋은 아침입니다', en: 'Good morning', ja: 'おはようございます' },
];

function translate(text: string, source: string, target: string): string {
  const wanted = text.trim();
  const phrase = PHRASES.find((entry) => entry[source] === wanted);
  return phrase?.[target] ?? `[${target}] ${text}`;
}

/** Text length as Papago counts it: characters (code points), not UTF-16 units. */
const charCount = (text: string): number => [...text].length;

function translationOf(engine: Engine, params: Parameters): GatewayResponse {
  const source = params.get('source');
  const target = params.get('target');
  const text = params.get('text');
  if (!source) return refusal(engine, '01');
  if (!engine.sources.has(source)) return refusal(engine, '02');
  if (!target) return refusal(engine, '03');
  if (!engine.targets.has(target)) return refusal(engine, '04');
  if (!text) return refusal(engine, '07');
  if (charCount(text) > MAX_TRANSLATION_CHARS) return refusal(engine, '08');
  const actualSource = source === 'auto' ? detectLanguage(text) : source;
  if (actualSource === target) return refusal(engine, '05');
  if (!engine.hasTranslator(actualSource, target)) return refusal(engine, '06');
  return endpointJson(200, {
    message: {
      '@type': 'response',
      '@service': engine.service,
      '@version': '1.0.0',
      result: {
        srcLangType: actualSource,
        tarLangType: target,
        translatedText: translate(text, actualSource, target),
        engineType: engine.engineType,
      },
    },
  });
}

function handleTranslation(engine: Engine, request: GatewayRequest): GatewayResponse {
  const params = bodyParams(request);
  if (params === 'bad-json') return badRequest('The body is not valid JSON.');
  return translationOf(engine, params);
}

export function translationRoutes(authenticate: Authenticator): ApiRoute[] {
  return [NMT, SMT].map((engine) => ({
    method: 'POST',
    path: engine.path,
    authenticate,
    handle: ({ request }) => handleTranslation(engine, request),
  }));
}
