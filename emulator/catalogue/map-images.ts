/**
 * Map images: the static map (`/map-static/v2/raster`) and raster tiles
 * (`/map-tile/v1/raster/styles/...`, nothing public: rules chosen here). Both refuse bad
 * parameters with HTTP 403 and an empty body, as the static map does.
 */
import type { GatewayResponse } from '../core/types.ts';
import type { ApiRoute } from '../gateway/api-module.ts';
import type { Authenticator } from '../gateway/iam-auth.ts';
import { drawText } from '../media/font.ts';
import { encodeJpeg, sizedJpeg } from '../media/jpeg.ts';
import { encodePng, sizedPng } from '../media/png.ts';
import { createRaster, drawLine, fillRect, type Raster, type Rgb } from '../media/raster.ts';
import { type LonLat, parseInteger } from './params.ts';
import { binary, emptyStatus } from './responses.ts';

const MAP_TYPES = ['basic', 'traffic', 'satellite', 'satellite_base', 'terrain'] as const;
const STATIC_FORMATS = ['jpg', 'jpeg', 'png8', 'png'] as const;
const STATIC_MAX_WIDTH = 4096;
const STATIC_MAX_HEIGHT = 2048;
const MAX_LEVEL = 21;
/** Generated images are scaled down to fit this many pixels a side, aspect kept. */
const MAX_IMAGE_SIDE = 256;
const TILE_SIZE = 256;
const DEFAULT_MARKER_LEVEL = 16;
const CRS_LIST = ['EPSG:4326', 'NHN:2048', 'NHN:128', 'EPSG:3857', 'EPSG:900913', 'EPSG:5179'];
const LANGUAGES = ['ko', 'en', 'ja', 'zh'];

type MapType = (typeof MAP_TYPES)[number];
type ImageFormat = (typeof STATIC_FORMATS)[number];

const BACKGROUNDS: Readonly<Record<MapType, { land: Rgb; road: Rgb }>> = {
  basic: { land: [242, 239, 233], road: [255, 255, 255] },
  traffic: { land: [242, 239, 233], road: [99, 190, 123] },
  satellite: { land: [62, 84, 58], road: [150, 150, 140] },
  satellite_base: { land: [62, 84, 58], road: [62, 84, 58] },
  terrain: { land: [214, 226, 196], road: [250, 246, 236] },
};
const MARKER: Rgb = [226, 56, 48];
const forbidden = (): GatewayResponse => emptyStatus(403);

const isOneOf = <T extends string>(list: readonly T[], value: string): value is T =>
  (list as readonly string[]).includes(value);

/** A map image of a size a test asks (core/answer-sizes.ts): the same image, padded. */
export function sizedImage(body: Buffer, bytes: number, contentType: string): Buffer | undefined {
  if (contentType === 'image/png') return sizedPng(body, bytes);
  return contentType.startsWith('image/jp') ? sizedJpeg(body, bytes) : undefined;
}

function imageResponse(raster: Raster, format: ImageFormat, jpegType: string): GatewayResponse {
  if (format === 'png' || format === 'png8') {
    return binary('image/png', encodePng(raster, { palette: format === 'png8' }));
  }
  return binary(jpegType, encodeJpeg(raster));
}

/** A street grid, so the image is a map of sorts and not a flat colour. */
function drawGrid(raster: Raster, mapType: MapType, spacing: number): void {
  const { road } = BACKGROUNDS[mapType];
  for (let x = spacing / 2; x < raster.width; x += spacing)
    fillRect(raster, x, 0, 2, raster.height, road);
  for (let y = spacing / 2; y < raster.height; y += spacing)
    fillRect(raster, 0, y, raster.width, 2, road);
}

// ---- static map ----

interface StaticMapRequest {
  readonly width: number;
  readonly height: number;
  readonly centre?: LonLat;
  readonly level: number;
  readonly scale: number;
  readonly format: ImageFormat;
  readonly mapType: MapType;
  readonly markers: readonly LonLat[];
}

function parseXY(text: string): LonLat | undefined {
  const parts = text.split(/[ ,]/);
  if (parts.length !== 2) return undefined;
  const values = parts.map((part) => (part.trim() === '' ? Number.NaN : Number(part)));
  const [x = Number.NaN, y = Number.NaN] = values;
  return Number.isFinite(x) && Number.isFinite(y) ? [x, y] : undefined;
}

/** `type:d|size:mid|color:red|pos:127.1 37.3|label:1`; undefined when malformed or without pos. */
function parseMarker(text: string): LonLat | undefined {
  const fields = new Map<string, string>();
  for (const segment of text.split('|')) {
    const colon = segment.indexOf(':');
    if (colon <= 0) return undefined;
    fields.set(segment.slice(0, colon), segment.slice(colon + 1));
  }
  const type = fields.get('type');
  const size = fields.get('size');
  if (type !== undefined && !['d', 'n', 'a', 't', 'e'].includes(type)) return undefined;
  if (size !== undefined && !['tiny', 'small', 'mid'].includes(size)) return undefined;
  const pos = fields.get('pos');
  return pos === undefined ? undefined : parseXY(pos);
}

function optionalInteger(query: URLSearchParams, name: string): number | undefined | 'bad' {
  const text = query.get(name);
  if (text === null) return undefined;
  return parseInteger(text) ?? 'bad';
}

function inRange(value: number | undefined | 'bad', min: number, max: number): boolean {
  return typeof value === 'number' && value >= min && value <= max;
}

function parseStaticMap(query: URLSearchParams): StaticMapRequest | undefined {
  const width = optionalInteger(query, 'w');
  const height = optionalInteger(query, 'h');
  if (!inRange(width, 1, STATIC_MAX_WIDTH) || !inRange(height, 1, STATIC_MAX_HEIGHT))
    return undefined;
  const level = optionalInteger(query, 'level');
  const scale = optionalInteger(query, 'scale') ?? 1;
  if (level !== undefined && !inRange(level, 0, MAX_LEVEL)) return undefined;
  if (scale !== 1 && scale !== 2) return undefined;
  const format = query.get('format') ?? 'jpg';
  const mapType = query.get('maptype') ?? 'basic';
  const crs = query.get('crs') ?? 'EPSG:4326';
  const lang = query.get('lang') ?? 'ko';
  if (!isOneOf(STATIC_FORMATS, format) || !isOneOf(MAP_TYPES, mapType)) return undefined;
  if (!CRS_LIST.includes(crs.toUpperCase()) || !LANGUAGES.includes(lang)) return undefined;
  const markers = query.getAll('markers').map(parseMarker);
  if (!markers.every((marker) => marker !== undefined)) return undefined;
  const centreText = query.get('center');
  const centre = centreText === null ? undefined : parseXY(centreText);
  if (centreText !== null && !centre) return undefined;
  // Without markers there is nothing to frame: centre and level are then both required.
  if (markers.length === 0 && (!centre || level === undefined)) return undefined;
  return {
    width: width as number,
    height: height as number,
    centre: centre ?? markers[0],
    level: (level as number | undefined) ?? DEFAULT_MARKER_LEVEL,
    scale,
    format,
    mapType,
    markers,
  };
}

/** Web Mercator world pixel coordinates at `level` (256-pixel tiles). */
function worldPixel([lon, lat]: LonLat, level: number): [number, number] {
  const size = 256 * 2 ** level;
  const sin = Math.sin((Math.max(-85, Math.min(85, lat)) * Math.PI) / 180);
  return [
    ((lon + 180) / 360) * size,
    (0.5 - Math.log((1 + sin) / (1 - sin)) / (4 * Math.PI)) * size,
  ];
}

function renderStaticMap(map: StaticMapRequest): Raster {
  const fullWidth = map.width * map.scale;
  const fullHeight = map.height * map.scale;
  const shrink = Math.min(1, MAX_IMAGE_SIDE / Math.max(fullWidth, fullHeight));
  const raster = createRaster(
    Math.max(1, Math.round(fullWidth * shrink)),
    Math.max(1, Math.round(fullHeight * shrink)),
    BACKGROUNDS[map.mapType].land,
  );
  drawGrid(raster, map.mapType, 32);
  const origin = worldPixel(map.centre ?? [0, 0], map.level);
  for (const marker of map.markers) {
    const [x, y] = worldPixel(marker, map.level);
    const px = raster.width / 2 + (x - origin[0]) * map.scale * shrink;
    const py = raster.height / 2 + (y - origin[1]) * map.scale * shrink;
    fillRect(raster, px - 3, py - 3, 7, 7, MARKER);
  }
  return raster;
}

function staticMap(query: URLSearchParams): GatewayResponse {
  const map = parseStaticMap(query);
  if (!map) return forbidden();
  // The real static map labels its JPEGs with a charset: so does this one.
  return imageResponse(renderStaticMap(map), map.format, 'image/jpeg;charset=UTF-8');
}

// ---- tiles ----

const TILE_FORMATS = ['png', 'jpg', 'jpeg'] as const;
const SUB_TYPE = /^[a-z0-9]+(\.[a-z0-9]+)*$/;
const DIGITS = /^\d{1,10}$/;

interface TileRequest {
  readonly mapType: MapType;
  readonly z: number;
  readonly x: number;
  readonly y: number;
  readonly scale: number;
  readonly format: ImageFormat;
}

function parseTile(params: Readonly<Record<string, string>>, query: URLSearchParams) {
  const { mapType = '', z = '', x = '', y = '', scale = '', format = '' } = params;
  if (![z, x, y].every((value) => DIGITS.test(value))) return undefined;
  const [zoom, column, row] = [Number(z), Number(x), Number(y)];
  if (zoom > MAX_LEVEL || column >= 2 ** zoom || row >= 2 ** zoom) return undefined;
  if (scale !== '1' && scale !== '2') return undefined;
  if (!isOneOf(MAP_TYPES, mapType) || !isOneOf(TILE_FORMATS, format)) return undefined;
  const subType = query.get('mt');
  if (subType !== null && !SUB_TYPE.test(subType)) return undefined;
  const tile: TileRequest = { mapType, z: zoom, x: column, y: row, scale: Number(scale), format };
  return tile;
}

function renderTile(tile: TileRequest): Raster {
  const size = TILE_SIZE * tile.scale;
  const { land, road } = BACKGROUNDS[tile.mapType];
  const raster = createRaster(size, size, land);
  drawGrid(raster, tile.mapType, 64 * tile.scale);
  const edge: Rgb = [
    Math.round(road[0] * 0.6),
    Math.round(road[1] * 0.6),
    Math.round(road[2] * 0.6),
  ];
  drawLine(raster, [0, 0], [size - 1, 0], edge);
  drawLine(raster, [0, 0], [0, size - 1], edge);
  // The tile's own address, readable when tiles are laid out side by side.
  drawText(raster, `${tile.z}/${tile.x}/${tile.y}`, 8, 8, {
    color: [60, 60, 60],
    scale: 2 * tile.scale,
  });
  return raster;
}

function tileImage(
  params: Readonly<Record<string, string>>,
  query: URLSearchParams,
): GatewayResponse {
  const tile = parseTile(params, query);
  if (!tile) return forbidden();
  return imageResponse(renderTile(tile), tile.format, 'image/jpeg');
}

export function mapImageRoutes(
  authenticate: Authenticator,
  authenticateWithQuery: Authenticator,
): ApiRoute[] {
  return [
    {
      method: 'GET',
      path: '/map-static/v2/raster',
      authenticate: authenticateWithQuery,
      handle: ({ request }) => staticMap(request.query),
    },
    {
      method: 'GET',
      path: '/map-tile/v1/raster/styles/{mapType}/{z}/{x}/{y}@{scale}x.{format}',
      authenticate,
      handle: ({ request, params }) => tileImage(params, request.query),
    },
  ];
}
