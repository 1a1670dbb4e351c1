import { describe, expect, it } from 'vitest';
import { encodePng } from '../../../../emulator/media/png.ts';
import { createRaster, fillRect } from '../../../../emulator/media/raster.ts';
import { readPng } from './media-checks.ts';

describe('the PNG encoder', () => {
  it('writes PNGs that round-trip pixel for pixel, truecolour and palette', () => {
    const raster = createRaster(3, 2, [10, 20, 30]);
    fillRect(raster, 1, 1, 1, 1, [200, 100, 50]);

    const truecolour = readPng(encodePng(raster));
    const palette = readPng(encodePng(raster, { palette: true }));

    expect([...(truecolour.rows[1] ?? [])]).toEqual([10, 20, 30, 200, 100, 50, 10, 20, 30]);
    expect(palette).toMatchObject({ colourType: 3, paletteSize: 2 });
    expect([...(palette.rows[1] ?? [])]).toEqual([0, 1, 0]);
  });
});
