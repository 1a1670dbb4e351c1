/** Reading the parameters of catalogue calls: form or JSON bodies, numbers, coordinates. */
import type { GatewayRequest } from '../core/types.ts';
import { mediaType } from '../gateway/envelope.ts';

export type Parameters = ReadonlyMap<string, string>;

/** Form fields of a x-www-form-urlencoded body (UTF-8, `+` as space). */
export function formParams(request: GatewayRequest): Parameters {
  return new Map(new URLSearchParams(request.body.toString('utf8')));
}

function scalarText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

/** The scalar members of a JSON object body, as text; undefined when the body is not JSON. */
function jsonParams(request: GatewayRequest): Parameters | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(request.body.toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
  const params = new Map<string, string>();
  for (const [name, value] of Object.entries(parsed)) {
    const text = scalarText(value);
    if (text !== undefined) params.set(name, text);
  }
  return params;
}

export const isJson = (request: GatewayRequest): boolean =>
  mediaType(request.headers['content-type']) === 'application/json';

export const isForm = (request: GatewayRequest): boolean =>
  mediaType(request.headers['content-type']) === 'application/x-www-form-urlencoded';

/** Form or JSON by Content-Type; anything else carries no parameters the backend can read. */
export function bodyParams(request: GatewayRequest): Parameters | 'bad-json' {
  if (isJson(request)) return jsonParams(request) ?? 'bad-json';
  if (isForm(request)) return formParams(request);
  return new Map();
}

/** A whole number written in decimal, optionally signed; undefined otherwise. */
export function parseInteger(text: string | undefined): number | undefined {
  if (text === undefined || !/^[+-]?\d{1,9}$/.test(text.trim())) return undefined;
  return Number(text.trim());
}

export type LonLat = readonly [number, number];

/** "lon,lat" in degrees; undefined when malformed or out of range. */
export function parseLonLat(text: string | undefined): LonLat | undefined {
  const parts = text?.split(',');
  if (parts?.length !== 2) return undefined;
  const [lonText = '', latText = ''] = parts;
  const number = /^\s*[+-]?(\d+(\.\d*)?|\.\d+)\s*$/;
  if (!number.test(lonText) || !number.test(latText)) return undefined;
  const lon = Number(lonText);
  const lat = Number(latText);
  if (Math.abs(lon) > 180 || Math.abs(lat) > 90) return undefined;
  return [lon, lat];
}

const EARTH_RADIUS_M = 6_371_000;

/** Great-circle distance in metres. */
export function distanceMetres(a: LonLat, b: LonLat): number {
  const rad = Math.PI / 180;
  const dLat = (b[1] - a[1]) * rad;
  const dLon = (b[0] - a[0]) * rad;
  const h =
    Math.sin(dLat / 2) ** 2 + Math.cos(a[1] * rad) * Math.cos(b[1] * rad) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(h)));
}
