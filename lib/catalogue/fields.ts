/**
 * Building blocks of the catalogue's input schemas (zod/mini). zod/mini ships no English
 * messages, so every check says in words what it expected: the caller reads these in the
 * `details` of a 400.
 */
import * as z from 'zod/mini';
import { documented, isDotOnlySegment } from '../core/schemas.ts';

/** An object that refuses unknown members: a misspelt parameter is an error, not a no-op. */
export function strictInput<S extends z.core.$ZodLooseShape>(shape: S) {
  return z.strictObject(shape, {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `unknown parameter(s): ${issue.keys.join(', ')}`
        : 'expected an object',
  });
}

export function text(min: number, max: number) {
  return z
    .string('expected a string')
    .check(
      z.minLength(min, min === 1 ? 'expected a non-empty string' : `expected ${min}+ characters`),
      z.maxLength(max, `expected at most ${max} characters`),
    );
}

export function oneOf<const T extends readonly [string, ...string[]]>(values: T) {
  return z.enum(values, `expected one of: ${values.join(', ')}`);
}

/**
 * One or more of `values`, joined by `separator` (`trafast:tracomfort`), sent as given; `joiner`
 * names the separator in the message (`:`, `commas`).
 */
export function someOf(values: readonly string[], separator: string, joiner = separator) {
  return z
    .string()
    .check(
      z.refine(
        (value) => value.split(separator).every((item) => values.includes(item)),
        `expected one or more of ${values.join(', ')}, joined by ${joiner}`,
      ),
    );
}

const LON_LAT = /^(-?[0-9]{1,3}(?:\.[0-9]+)?),(-?[0-9]{1,2}(?:\.[0-9]+)?)$/;

function inRange(value: string): boolean {
  const match = LON_LAT.exec(value);
  if (!match) return false;
  return Math.abs(Number(match[1])) <= 180 && Math.abs(Number(match[2])) <= 90;
}

/** "lon,lat" in WGS84 degrees, sent upstream exactly as given. */
export function lonLat() {
  const message = 'expected "longitude,latitude" in degrees, e.g. 127.1054,37.3595';
  const schema = z
    .string(message)
    .check(z.regex(LON_LAT, message), z.refine(inRange, 'longitude or latitude out of range'));
  return documented(schema, { description: message });
}

/** A repeatable query parameter: one value or several, always an array after parsing. */
export function repeated(item: z.ZodMiniType<string, string>, max: number) {
  return z.pipe(
    z.union([item, z.array(item)], 'expected a string or repeated strings'),
    z
      .transform((value: string | string[]) => (Array.isArray(value) ? value : [value]))
      .check(z.refine((values) => values.length <= max, `expected at most ${max} values`)),
  );
}

/** An absolute http(s) URL. */
export function httpUrl() {
  return z
    .url({ protocol: /^https?$/, error: 'expected an absolute http(s) URL' })
    .check(z.maxLength(4096, 'expected a URL of at most 4096 characters'));
}

/** A calendar date yyyy-MM-dd that exists (no 2023-02-30). */
export function isoDate() {
  const message = 'expected a date yyyy-MM-dd';
  return z.string(message).check(
    z.regex(/^[0-9]{4}-[0-9]{2}-[0-9]{2}$/, message),
    z.refine((value) => {
      const date = new Date(`${value}T00:00:00Z`);
      return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(value);
    }, 'expected a date that exists'),
  );
}

/** A token such as a map type: letters, digits and `_ . -`, bounded. */
export function token(max = 64) {
  const message = `expected a word of letters, digits, _ . - (at most ${max})`;
  return z.string(message).check(z.regex(new RegExp(`^[A-Za-z0-9_.-]{1,${max}}$`), message));
}

/** A token that becomes a path segment upstream: never only dots (`.` or `..` would move the path). */
export function segment(max = 64) {
  return token(max).check(
    z.refine((value) => !isDotOnlySegment(value), 'expected a word that is not only dots'),
  );
}

/**
 * The parameters of a parsed query in the order given, each repeated value its own pair;
 * absent values are left out.
 */
export function pairsOf<T extends object>(values: T, keys: readonly (keyof T & string)[]) {
  const pairs: [string, string][] = [];
  for (const key of keys) {
    const value: unknown = values[key];
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) pairs.push([key, String(item)]);
  }
  return pairs;
}
