/** Baseline JPEG through the jpeg-js encoder (the emulator never ships in a function bundle). */
import jpeg from 'jpeg-js';
import type { Raster } from './raster.ts';

const DEFAULT_QUALITY = 85;

export function encodeJpeg(raster: Raster, quality = DEFAULT_QUALITY): Buffer {
  return jpeg.encode({ width: raster.width, height: raster.height, data: raster.data }, quality)
    .data;
}

/** A comment segment's marker and length, and the most data one carries. */
const COMMENT_OVERHEAD = 4;
const MAX_COMMENT_DATA = 65_533;

/**
 * The same JPEG in exactly `bytes` bytes: comment segments (COM, which decoders skip) after its
 * start-of-image marker hold the rest. A JPEG already as large, or too close to it, is kept.
 */
export function sizedJpeg(jpeg: Buffer, bytes: number): Buffer {
  let padding = bytes - jpeg.length;
  if (padding < COMMENT_OVERHEAD) return jpeg;
  const segments: Buffer[] = [];
  while (padding > 0) {
    // The last segment takes what is left, and none leaves less than a segment's overhead.
    let data = Math.min(padding - COMMENT_OVERHEAD, MAX_COMMENT_DATA);
    const rest = padding - COMMENT_OVERHEAD - data;
    if (rest > 0 && rest < COMMENT_OVERHEAD) data -= COMMENT_OVERHEAD;
    const segment = Buffer.alloc(COMMENT_OVERHEAD + data, 0x20);
    segment.writeUInt16BE(0xfffe, 0);
    segment.writeUInt16BE(data + 2, 2);
    segments.push(segment);
    padding -= segment.length;
  }
  return Buffer.concat([jpeg.subarray(0, 2), ...segments, jpeg.subarray(2)]);
}
