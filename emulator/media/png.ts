/**
 * A PNG encoder on node:zlib: truecolour (colour type 2) or, for the platform's `png8` format,
 * 8-bit palette (colour type 3) when the image has at most 256 colours.
 */
import { crc32, deflateSync } from 'node:zlib';
import type { Raster } from './raster.ts';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

const COLOUR_TYPE_TRUECOLOUR = 2;
const COLOUR_TYPE_PALETTE = 3;
const MAX_PALETTE_SIZE = 256;

function chunk(type: string, data: Buffer): Buffer {
  const typeAndData = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typeAndData));
  return Buffer.concat([length, typeAndData, crc]);
}

function header(raster: Raster, colourType: number): Buffer {
  const data = Buffer.alloc(13);
  data.writeUInt32BE(raster.width, 0);
  data.writeUInt32BE(raster.height, 4);
  data.writeUInt8(8, 8); // bit depth
  data.writeUInt8(colourType, 9);
  // Compression, filter and interlace methods stay 0 (deflate, adaptive, none).
  return data;
}

/** Scanlines each preceded by filter type 0 (none), `bytesPerPixel` bytes a pixel. */
function scanlines(
  raster: Raster,
  bytesPerPixel: number,
  write: (pixel: number, target: Buffer, offset: number) => void,
): Buffer {
  const stride = 1 + raster.width * bytesPerPixel;
  const lines = Buffer.alloc(stride * raster.height);
  for (let y = 0; y < raster.height; y++) {
    for (let x = 0; x < raster.width; x++) {
      write(y * raster.width + x, lines, y * stride + 1 + x * bytesPerPixel);
    }
  }
  return lines;
}

const colourKey = (data: Buffer, pixel: number): number =>
  ((data[pixel * 4] ?? 0) << 16) | ((data[pixel * 4 + 1] ?? 0) << 8) | (data[pixel * 4 + 2] ?? 0);

/** The image's colours in order of first use, or undefined when there are more than 256. */
function paletteOf(raster: Raster): Map<number, number> | undefined {
  const palette = new Map<number, number>();
  for (let pixel = 0; pixel < raster.width * raster.height; pixel++) {
    const key = colourKey(raster.data, pixel);
    if (palette.has(key)) continue;
    if (palette.size === MAX_PALETTE_SIZE) return undefined;
    palette.set(key, palette.size);
  }
  return palette;
}

function truecolourPng(raster: Raster): Buffer {
  const { data } = raster;
  // Byte by byte: a Buffer.copy call per pixel costs more than the three bytes it moves.
  const pixels = scanlines(raster, 3, (pixel, target, offset) => {
    const from = pixel * 4;
    target[offset] = data[from]!;
    target[offset + 1] = data[from + 1]!;
    target[offset + 2] = data[from + 2]!;
  });
  return Buffer.concat([
    PNG_SIGNATURE,
    chunk('IHDR', header(raster, COLOUR_TYPE_TRUECOLOUR)),
    chunk('IDAT', deflateSync(pixels)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

function palettePng(raster: Raster, palette: Map<number, number>): Buffer {
  const entries = Buffer.alloc(palette.size * 3);
  for (const [key, index] of palette) {
    entries.writeUIntBE(key, index * 3, 3);
  }
  const pixels = scanlines(raster, 1, (pixel, target, offset) => {
    target[offset] = palette.get(colourKey(raster.data, pixel)) ?? 0;
  });
  return Buffer.concat([
    PNG_SIGNATURE,
    chunk('IHDR', header(raster, COLOUR_TYPE_PALETTE)),
    chunk('PLTE', entries),
    chunk('IDAT', deflateSync(pixels)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

export function encodePng(raster: Raster, options: { palette?: boolean } = {}): Buffer {
  const palette = options.palette ? paletteOf(raster) : undefined;
  return palette ? palettePng(raster, palette) : truecolourPng(raster);
}

/** Chunk length, type and CRC around a chunk's data. */
const CHUNK_OVERHEAD = 12;

/**
 * The same PNG in exactly `bytes` bytes: a private ancillary chunk (`emPd`, which decoders
 * skip) before IEND holds the rest. A PNG already as large, or too close to it, is kept.
 */
export function sizedPng(png: Buffer, bytes: number): Buffer {
  const padding = bytes - png.length - CHUNK_OVERHEAD;
  if (padding < 0) return png;
  const iend = png.length - CHUNK_OVERHEAD;
  return Buffer.concat([
    png.subarray(0, iend),
    chunk('emPd', Buffer.alloc(padding)),
    png.subarray(iend),
  ]);
}
