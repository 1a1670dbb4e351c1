/**
 * What a CAPTCHA shows or says: a JPEG with the answer drawn in the 5x7 font, and a WAV with
 * one DTMF tone per digit. The layouts are exported so tests can read the answer back.
 */
import { createHash } from 'node:crypto';
import { drawText, textWidth } from '../media/font.ts';
import { encodeJpeg } from '../media/jpeg.ts';
import { createRaster, drawLine, type Rgb, setPixel } from '../media/raster.ts';
import { dtmfSegments, encodeWav, renderSegments } from '../media/wav.ts';
import { IMAGE_ANSWER_LENGTH } from './captcha-store.ts';

export const CAPTCHA_IMAGE = {
  width: 200,
  height: 70,
  /** Each font pixel is a scale x scale block; one blank font column between characters. */
  scale: 4,
  spacing: 1,
  top: 21,
  ink: [28, 36, 96] as Rgb,
} as const;

const TEXT_STYLE = { color: CAPTCHA_IMAGE.ink, scale: CAPTCHA_IMAGE.scale, spacing: 1 };
/** Where the first character starts: the answer is centred. */
export const CAPTCHA_TEXT_LEFT = Math.round(
  (CAPTCHA_IMAGE.width - textWidth('X'.repeat(IMAGE_ANSWER_LENGTH), TEXT_STYLE)) / 2,
);

/** A small deterministic generator, so one key always gives the same picture. */
function seededRandom(seed: string): () => number {
  const digest = createHash('sha256').update(seed).digest();
  let state = digest.readUInt32LE(0) || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
}

/** Light clutter that does not hide the dark characters. */
function drawNoise(raster: ReturnType<typeof createRaster>, random: () => number): void {
  const light = (): Rgb => [170 + Math.floor(random() * 60), 170 + Math.floor(random() * 60), 200];
  for (let line = 0; line < 8; line++) {
    const from = [random() * raster.width, random() * raster.height] as const;
    const to = [random() * raster.width, random() * raster.height] as const;
    drawLine(raster, from, to, light());
  }
  for (let dot = 0; dot < 300; dot++) {
    setPixel(raster, random() * raster.width, random() * raster.height, light());
  }
}

export function captchaImage(key: string, answer: string): Buffer {
  const raster = createRaster(CAPTCHA_IMAGE.width, CAPTCHA_IMAGE.height, [246, 246, 240]);
  drawNoise(raster, seededRandom(key));
  drawText(raster, answer, CAPTCHA_TEXT_LEFT, CAPTCHA_IMAGE.top, TEXT_STYLE);
  return encodeJpeg(raster, 90);
}

const CAPTCHA_AUDIO = { sampleRate: 8000, toneMs: 180, gapMs: 120 } as const;

export function captchaAudio(answer: string): Buffer {
  const segments = dtmfSegments(answer, CAPTCHA_AUDIO);
  return encodeWav(renderSegments(segments, CAPTCHA_AUDIO.sampleRate), CAPTCHA_AUDIO.sampleRate);
}
