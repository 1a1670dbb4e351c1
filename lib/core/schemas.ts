/**
 * Input schema pieces shared by several routes and by the secret: names, and integers as a query
 * string or a path segment carries them (text), documented as integers.
 */
import * as z from 'zod/mini';

/** A zod schema whose parsed value is a T: what a route or an entry declares for its input. */
export type Schema<T = unknown> = z.ZodMiniType<T>;

/**
 * What the OpenAPI document says of a schema beyond what zod tells it: an integer carried as
 * text, a description. Kept here rather than in zod's registry, which every bundle would carry
 * for the document's sake alone; only the OpenAPI builder reads it (openapi-operation.ts).
 */
const documentation = new WeakMap<object, Readonly<Record<string, unknown>>>();

/** The schema, with what the OpenAPI document says of it. */
export function documented<S extends object>(schema: S, doc: Readonly<Record<string, unknown>>): S {
  documentation.set(schema, doc);
  return schema;
}

/** What the OpenAPI document says of a schema beyond what zod tells it, if anything. */
export function documentationOf(schema: object): Readonly<Record<string, unknown>> | undefined {
  return documentation.get(schema);
}

const DOT_ONLY = '(?:\\.|%2e)+';
const DOT_ONLY_SEGMENT = new RegExp(`^${DOT_ONLY}$`, 'i');
const DOT_ONLY_SEGMENT_IN_PATH = new RegExp(`(?:^|/)${DOT_ONLY}(?:/|$)`, 'i');

/**
 * A path segment of only dots (`.`, `..`, also percent-encoded as `%2e`): URL parsing resolves
 * `.` and `..` as "here" and "one level up", so such a segment built from input would move an
 * upstream path. Refused wherever a segment is built from input or from an upstream's answer.
 */
export function isDotOnlySegment(segment: string): boolean {
  return DOT_ONLY_SEGMENT.test(segment);
}

/** True when any `/`-separated segment of the path is dot-only (`isDotOnlySegment`). */
export function hasDotOnlySegment(path: string): boolean {
  return DOT_ONLY_SEGMENT_IN_PATH.test(path);
}

/** The name of an action, a trigger or a webhook, as the secret keys them and a path carries them. */
export const nameSchema = z
  .string()
  .check(z.regex(/^[A-Za-z0-9_.-]{1,128}$/, 'expected a name of letters, digits, _ . -'));

/** A path with one `{name}` parameter. */
export const namePathSchema = z.object({ name: nameSchema });
export type NamePath = z.infer<typeof namePathSchema>;

/** An integer in [min, max] as JSON sends it. */
export function int(min: number, max: number) {
  const message = `expected an integer from ${min} to ${max}`;
  return z.int(message).check(z.gte(min, message), z.lte(max, message));
}

/** The text of an integer: an optional minus, no leading zero, at most ten digits. */
const INT_TEXT = /^-?(0|[1-9][0-9]{0,9})$/;

/**
 * An integer in [min, max] as a query string or a path segment carries it: text, parsed. The
 * OpenAPI document shows it as an integer (what a typed client sends), not as a string.
 *
 * One pipe (the text, then its number with the range checked), and what the document says of it
 * kept apart (`documented`) rather than attached as a check. It is parsed on every request of the
 * routes that take it, and each layer of zod costs there (about half the parse,
 * docs/benchmark-method.md). Every issue carries `message`, as before.
 */
export function intText(
  min: number,
  max: number,
  message = `expected an integer from ${min} to ${max}`,
) {
  const schema = z.pipe(
    z.string(message).check(z.regex(INT_TEXT, message)),
    z.transform((text: string, context) => {
      const value = Number(text);
      if (value < min || value > max) context.issues.push({ code: 'custom', message, input: text });
      return value;
    }),
  );
  return documented(schema, { type: 'integer', minimum: min, maximum: max, description: message });
}
