import { describe, expect, it } from 'vitest';
import { GLYPHS } from '../../../../emulator/media/font.ts';

describe('the 5x7 font', () => {
  it('gives every glyph of the font its own bitmap', () => {
    const bitmaps = Object.values(GLYPHS).map((glyph) => glyph.join(','));

    expect(new Set(bitmaps).size).toBe(bitmaps.length);
  });
});
