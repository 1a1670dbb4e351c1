/** A small RGBA drawing surface for the emulator's generated images (maps, tiles, CAPTCHAs). */

export type Rgb = readonly [number, number, number];

export interface Raster {
  readonly width: number;
  readonly height: number;
  /** RGBA, row by row, 4 bytes a pixel (what jpeg-js encodes). */
  readonly data: Buffer;
}

export function createRaster(width: number, height: number, background: Rgb): Raster {
  if (!Number.isInteger(width) || !Number.isInteger(height) || width < 1 || height < 1) {
    throw new Error(`A raster needs positive integer sizes, got ${width}x${height}`);
  }
  const raster = { width, height, data: Buffer.alloc(width * height * 4) };
  fillRect(raster, 0, 0, width, height, background);
  return raster;
}

/** Sets one pixel; coordinates outside the raster are ignored, so callers may draw past edges. */
export function setPixel(raster: Raster, x: number, y: number, color: Rgb): void {
  const px = Math.round(x);
  const py = Math.round(y);
  if (px < 0 || py < 0 || px >= raster.width || py >= raster.height) return;
  const offset = (py * raster.width + px) * 4;
  raster.data[offset] = color[0];
  raster.data[offset + 1] = color[1];
  raster.data[offset + 2] = color[2];
  raster.data[offset + 3] = 255;
}

export function fillRect(
  raster: Raster,
  x: number,
  y: number,
  width: number,
  height: number,
  color: Rgb,
): void {
  const left = Math.max(0, Math.round(x));
  const top = Math.max(0, Math.round(y));
  const right = Math.min(raster.width, Math.round(x + width));
  const bottom = Math.min(raster.height, Math.round(y + height));
  for (let py = top; py < bottom; py++) {
    for (let px = left; px < right; px++) setPixel(raster, px, py, color);
  }
}

/** A one-pixel line from (x0, y0) to (x1, y1). */
export function drawLine(
  raster: Raster,
  from: readonly [number, number],
  to: readonly [number, number],
  color: Rgb,
): void {
  const [x0, y0] = from;
  const [x1, y1] = to;
  const steps = Math.max(1, Math.ceil(Math.max(Math.abs(x1 - x0), Math.abs(y1 - y0))));
  for (let step = 0; step <= steps; step++) {
    const t = step / steps;
    setPixel(raster, x0 + (x1 - x0) * t, y0 + (y1 - y0) * t, color);
  }
}
