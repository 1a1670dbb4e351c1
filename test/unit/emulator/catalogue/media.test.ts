import { describe, expect, it } from 'vitest';
import { GLYPHS } from '../../../../emulator/media/font.js';
import { silentMp3 } from '../../../../emulator/media/mp3.js';
import { encodePng } from '../../../../emulator/media/png.js';
import { createRaster, fillRect } from '../../../../emulator/media/raster.js';
import {
  dtmfSegments,
  encodeWav,
  parseWav,
  renderSegments,
} from '../../../../emulator/media/wav.js';
import { decodeDtmf, mp3Frames, readPcmWav, readPng } from './media-checks.js';

describe('media encoders', () => {
  it('gives every glyph of the font its own bitmap', () => {
    const bitmaps = Object.values(GLYPHS).map((glyph) => glyph.join(','));

    expect(new Set(bitmaps).size).toBe(bitmaps.length);
  });

  it('makes whole MP3 frames covering at least the asked duration', () => {
    expect(mp3Frames(silentMp3(0))).toHaveLength(1);
    expect(mp3Frames(silentMp3(1000))).toHaveLength(28); // 1000 / 36 rounded up
  });

  it('writes PNGs that round-trip pixel for pixel, truecolour and palette', () => {
    const raster = createRaster(3, 2, [10, 20, 30]);
    fillRect(raster, 1, 1, 1, 1, [200, 100, 50]);

    const truecolour = readPng(encodePng(raster));
    const palette = readPng(encodePng(raster, { palette: true }));

    expect([...(truecolour.rows[1] ?? [])]).toEqual([10, 20, 30, 200, 100, 50, 10, 20, 30]);
    expect(palette).toMatchObject({ colourType: 3, paletteSize: 2 });
    expect([...(palette.rows[1] ?? [])]).toEqual([0, 1, 0]);
  });

  it('writes and reads WAV, DTMF included', () => {
    const wav = encodeWav(
      renderSegments(dtmfSegments('0123456789*#', { toneMs: 60, gapMs: 40 }), 8000),
      8000,
    );

    expect(decodeDtmf(readPcmWav(wav))).toBe('0123456789*#');
    expect(parseWav(wav)?.durationSeconds).toBeCloseTo(0.04 + 12 * 0.1, 3);
    expect(parseWav(Buffer.from('not a wav'))).toBeUndefined();
  });
});
