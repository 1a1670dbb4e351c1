/**
 * CLOVA speech: synthesis on the legacy `/voice/v1/tts` and
 * recognition on `/recog/v1/stt` (1.4). Audio is real: silent MPEG-1 Layer III frames, or a
 * PCM WAV tone.
 */
import type { GatewayRequest, GatewayResponse } from '../core/types.ts';
import type { ApiRoute } from '../gateway/api-module.ts';
import { mediaType } from '../gateway/envelope.ts';
import type { Authenticator } from '../gateway/iam-auth.ts';
import { silentMp3 } from '../media/mp3.ts';
import { encodeWav, parseWav, renderSegments, sizedWav } from '../media/wav.ts';
import { formParams, isForm, type Parameters } from './params.ts';
import { binary, endpointJson, legacyError } from './responses.ts';

/** The legacy synthesis voices (legacy `POST /voice/v1/tts`). */
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
const TTS_WAV_SAMPLE_RATE = 16_000;

const LEVEL = /^[+-]?[0-5]$/;
const MIN_AUDIO_MS = 300;
const MAX_AUDIO_MS = 3000;
const MS_PER_CHAR = 60;

type TtsRequest = { text: string; speed: number; format: 'mp3' | 'wav' };

/** VS01..VS07 are the platform's; VS08 and VS09 are this emulator's (the list is cut short). */
function validateTts(params: Parameters): TtsRequest | GatewayResponse {
  const speaker = params.get('speaker');
  const speed = params.get('speed');
  const text = params.get('text');
  const volume = params.get('volume');
  const pitch = params.get('pitch');
  const format = params.get('format') ?? 'mp3';
  if (!speaker) return legacyError(400, 'VS01', 'speaker parameter is needed.');
  if (!(TTS_SPEAKERS as readonly string[]).includes(speaker)) {
    return legacyError(400, 'VS02', 'Unsupported speaker.');
  }
  // The legacy engine always takes a speed; its clients always send one.
  if (speed === undefined || speed === '')
    return legacyError(400, 'VS03', 'Speed parameter is needed.');
  if (!LEVEL.test(speed)) return legacyError(400, 'VS04', 'Unsupported speed.');
  if (!text) return legacyError(400, 'VS05', 'text parameter is needed.');
  if ([...text].length > MAX_TTS_CHARS) {
    return legacyError(400, 'VS06', 'text parameter exceeds max length.');
  }
  if (volume !== undefined && !LEVEL.test(volume)) {
    return legacyError(400, 'VS07', 'Unsupported volume.');
  }
  if (pitch !== undefined && !LEVEL.test(pitch))
    return legacyError(400, 'VS08', 'Unsupported pitch.');
  if (format !== 'mp3' && format !== 'wav') return legacyError(400, 'VS09', 'Unsupported format.');
  return { text, speed: Number(speed), format };
}

/** Longer text speaks longer; speed 5 is half as fast, -5 twice as fast. */
function speechDurationMs(text: string, speed: number): number {
  const base = Math.min(MAX_AUDIO_MS, Math.max(MIN_AUDIO_MS, [...text].length * MS_PER_CHAR));
  return Math.round(base * 2 ** (speed / 5));
}

function synthesise(request: GatewayRequest): GatewayResponse {
  // Form only, like the real product: any other body carries no parameters it can read.
  const checked = validateTts(isForm(request) ? formParams(request) : new Map());
  if (!('text' in checked)) return checked;
  const durationMs = speechDurationMs(checked.text, checked.speed);
  if (checked.format === 'mp3') return binary('audio/mpeg', silentMp3(durationMs));
  const tone = renderSegments(
    [{ frequencies: [440], durationMs, amplitude: 0.2 }],
    TTS_WAV_SAMPLE_RATE,
  );
  return binary('audio/wav', encodeWav(tone, TTS_WAV_SAMPLE_RATE));
}

/** Synthesised WAV speech of a size a test asks (core/answer-sizes.ts): a longer tone. */
export function sizedSpeech(_body: Buffer, bytes: number, contentType: string): Buffer | undefined {
  return contentType === 'audio/wav' ? sizedWav(bytes, TTS_WAV_SAMPLE_RATE) : undefined;
}

const STT_LANGUAGES = ['Kor', 'Eng', 'Jpn', 'Chn'] as const;
type SttLanguage = (typeof STT_LANGUAGES)[number];
const MAX_STT_SECONDS = 60;
/** For audio whose length cannot be read (not WAV): 60 s of 16 kHz 16-bit mono PCM. */
const MAX_STT_OPAQUE_BYTES = MAX_STT_SECONDS * 16_000 * 2;

/** What the emulator "hears" in any audio with sound in it, per language. */
const STT_PHRASES: Readonly<Record<SttLanguage, string>> = {
  Kor: '안녕하세요 반갑습니다',
  Eng: 'hello nice to meet you',
  Jpn: 'こんにちは はじめまして',
  Chn: '你好 很高兴认识你',
};

const isSttLanguage = (lang: string): lang is SttLanguage =>
  (STT_LANGUAGES as readonly string[]).includes(lang);

function isSilentPcm(data: Buffer): boolean {
  return data.every((byte) => byte === 0);
}

/** Too long: a WAV by its header, anything else by its size. */
function tooLong(audio: Buffer): boolean {
  const wav = parseWav(audio);
  if (wav) return wav.durationSeconds > MAX_STT_SECONDS;
  return audio.length > MAX_STT_OPAQUE_BYTES;
}

function recognise(request: GatewayRequest): GatewayResponse {
  if (mediaType(request.headers['content-type']) !== 'application/octet-stream') {
    return legacyError(400, 'STT002', 'Invalid Content Type');
  }
  const lang = request.query.get('lang');
  if (!lang) return legacyError(400, 'STT004', 'Empty Language');
  if (!isSttLanguage(lang)) return legacyError(400, 'STT005', 'Invalid Language');
  if (request.body.length === 0) return legacyError(400, 'STT003', 'Empty Sound Data');
  if (tooLong(request.body)) return legacyError(413, 'STT001', 'Exceed Sound Data length');
  const wav = parseWav(request.body);
  // A WAV of pure digital silence has nothing to recognise.
  const text = wav && isSilentPcm(wav.data) ? '' : STT_PHRASES[lang];
  return endpointJson(200, { text });
}

export function speechRoutes(authenticate: Authenticator): ApiRoute[] {
  return [
    {
      method: 'POST',
      path: '/voice/v1/tts',
      authenticate,
      handle: ({ request }) => synthesise(request),
    },
    {
      method: 'POST',
      path: '/recog/v1/stt',
      authenticate,
      handle: ({ request }) => recognise(request),
    },
  ];
}
