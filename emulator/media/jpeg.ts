/** Baseline JPEG through the jpeg-js encoder (the emulator never ships in a function bundle). */
import jpeg from 'jpeg-js';
import type { Raster } from './raster.js';

const DEFAULT_QUALITY = 85;

export function encodeJpeg(raster: Raster, quality = DEFAULT_QUALITY): Buffer {
  return jpeg.encode({ width: raster.width, height: raster.height, data: raster.data }, quality)
    .data;
}
