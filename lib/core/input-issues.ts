/**
 * Input errors that teach: zod's issues about a request's path, query or body, turned into the
 * `{ path, issue }` details of a 400/`100`, each saying what was expected and, where it is safe,
 * what came instead.
 *
 * - An unknown query parameter or body member is named, with the ones the route knows:
 *   `query.pgae: unknown parameter; expected one of page, limit`.
 * - A value outside an enumeration lists the allowed values:
 *   `body.searchType: expected one of "memo", "url", ""; got "URL"`.
 * - A value of the wrong type or form says what was expected and what came:
 *   `body.limit: expected a positive integer, got "5"`.
 * - A missing member says so: `body.searchKeyword: required; expected a string`.
 *
 * What came is echoed only as the caller's own input, and only when it is short and cannot be a
 * credential: a string of at most 40 characters, a number, a boolean or null, under a name that
 * is not a token's, key's, secret's or password's. Anything else is described by its kind and
 * size (`got a string of 812 characters`, `got an array of 3 items`). A member name that came
 * from the caller is cut to 40 characters in the path.
 *
 * Pure: no I/O, no state. The inbound side calls `inputIssuesOf` (or `parseInput`) wherever it
 * validates a request's input.
 */
import type * as z from 'zod/mini';
import type { InputIssue } from './errors.ts';
import { knownKeysAt } from './known-keys.ts';
import type { Schema } from './schemas.ts';

/** Where an input comes from: the path parameters, the query string, or the body. */
export type InputPlace = 'path' | 'query' | 'body';

type Issue = z.core.$ZodIssue;
type Key = PropertyKey;

/** The longest input echoed in an issue, and the longest member name kept in a path. */
const MAX_ECHOED_CHARS = 40;

/** Names whose values are never echoed, whatever their length. */
const SECRET_NAME = /token|secret|password|passwd|credential|authorization|api[-_]?key|signature/i;

/** zod's own message when a check was given none. */
const DEFAULT_MESSAGE = 'Invalid input';

/**
 * The issues of a failed parse of `input` (at `where`) with `schema`, as details that teach.
 * `schema` and `input` are the ones parsed: the names an object knows and the value that came
 * are read from them.
 */
export function inputIssuesOf(
  where: InputPlace,
  error: { readonly issues: readonly Issue[] },
  schema?: Schema,
  input?: unknown,
): InputIssue[] {
  const found: InputIssue[] = [];
  for (const issue of error.issues) found.push(...teach(where, issue, schema, input));
  return found;
}

/** Parses `input` with `schema`: the value, or the issues that teach (inputIssuesOf). */
export function parseInput<T>(
  where: InputPlace,
  schema: Schema<T>,
  input: unknown,
):
  | { readonly success: true; readonly data: T }
  | { readonly success: false; readonly issues: InputIssue[] } {
  const result = schema.safeParse(input);
  if (result.success) return { success: true, data: result.data };
  return { success: false, issues: inputIssuesOf(where, result.error, schema as Schema, input) };
}

function teach(where: InputPlace, issue: Issue, schema: Schema | undefined, input: unknown) {
  const path = issue.path as readonly Key[];
  if (issue.code === 'unrecognized_keys') {
    const known = schema ? knownKeysAt(schema, path) : undefined;
    const word = where === 'query' ? 'parameter' : where === 'path' ? 'path parameter' : 'member';
    const expected =
      known === undefined
        ? ''
        : known.length === 0
          ? `; this ${where === 'body' ? 'object' : where} takes none`
          : `; expected one of ${known.join(', ')}`;
    return issue.keys.map((key) => ({
      path: pathText(where, [...path, key]),
      issue: `unknown ${word}${expected}`,
    }));
  }
  const value = valueAt(input, path);
  const present = value !== undefined;
  const expected = expectationOf(issue, where, path);
  // A refinement's own words stand alone when they relate members ("source and target must be
  // different"); when they say what the value should be ("expected ..."), what came follows.
  if (issue.code === 'custom' && (!present || !expected.startsWith('expected'))) {
    return [{ path: pathText(where, path), issue: expected }];
  }
  if (!present) {
    // The root itself missing is a body that is not there (a route that wants one).
    const what = path.length === 0 && where === 'body' ? 'a body is required' : 'required';
    return [{ path: pathText(where, path), issue: `${what}; ${expected}` }];
  }
  const got = describeValue(value, path);
  return [{ path: pathText(where, path), issue: `${expected}${separator(expected)}got ${got}` }];
}

/** "; " after a message that lists values with commas, ", " otherwise. */
function separator(expected: string): string {
  return /one of|[,;]/.test(expected) ? '; ' : ', ';
}

/** What the issue expected, in words: the schema's own message when it has one. */
function expectationOf(issue: Issue, where: InputPlace, path: readonly Key[]): string {
  const own = issue.message && issue.message !== DEFAULT_MESSAGE ? issue.message : undefined;
  if (own) return own;
  switch (issue.code) {
    case 'invalid_type':
      return `expected ${kindOf(issue.expected, where, path)}`;
    case 'invalid_value':
      return `expected one of ${issue.values.map((value) => JSON.stringify(value)).join(', ')}`;
    case 'too_small':
      return `expected ${bound(issue.origin, 'least', issue.minimum, issue.inclusive)}`;
    case 'too_big':
      return `expected ${bound(issue.origin, 'most', issue.maximum, issue.inclusive)}`;
    case 'invalid_format':
      return `expected ${formatOf(issue)}`;
    case 'not_multiple_of':
      return `expected a multiple of ${String(issue.divisor)}`;
    case 'invalid_union': {
      const kinds = issue.errors
        .map((errors) => errors[0])
        .filter((first): first is Issue => first !== undefined && first.path.length === 0)
        .map((first) => expectationOf(first, where, path).replace(/^expected /, ''));
      return kinds.length > 0 ? `expected ${[...new Set(kinds)].join(' or ')}` : 'invalid value';
    }
    case 'invalid_key':
      return 'expected a known name';
    case 'invalid_element':
      return 'invalid item';
    default:
      return 'invalid value';
  }
}

function kindOf(expected: string, where: InputPlace, path: readonly Key[]): string {
  switch (expected) {
    case 'int':
      return 'an integer';
    case 'number':
      return 'a number';
    case 'string':
      return 'a string';
    case 'boolean':
      return 'true or false';
    case 'object':
      return where === 'body' && path.length === 0 ? 'a JSON object' : 'an object';
    case 'array':
      return 'an array';
    case 'null':
      return 'null';
    default:
      return expected;
  }
}

function bound(origin: string, which: 'least' | 'most', limit: unknown, inclusive?: boolean) {
  const n = Number(limit);
  switch (origin) {
    case 'string':
      return which === 'least' && n === 1 ? 'a non-empty string' : `at ${which} ${n} characters`;
    case 'array':
    case 'set':
      return which === 'least' && n === 1 ? 'at least one item' : `at ${which} ${n} items`;
    default: {
      const sign =
        which === 'least' ? (inclusive === false ? '>' : '>=') : inclusive === false ? '<' : '<=';
      return `a number ${sign} ${n}`;
    }
  }
}

function formatOf(issue: Extract<Issue, { code: 'invalid_format' }>): string {
  switch (issue.format) {
    case 'url':
      return 'an absolute URL';
    case 'datetime':
      return 'an ISO 8601 date-time';
    case 'date':
      return 'a date yyyy-MM-dd';
    case 'email':
      return 'an email address';
    case 'uuid':
      return 'a UUID';
    case 'regex':
      return 'text of the documented form';
    default:
      return `a ${issue.format}`;
  }
}

/**
 * The value that came, safe to show the caller who sent it: short scalars as JSON, anything
 * long, structured, or under a credential's name by its kind and size.
 */
export function describeValue(value: unknown, path: readonly Key[] = []): string {
  const secretLooking = path.some((key) => typeof key === 'string' && SECRET_NAME.test(key));
  if (value === null) return 'null';
  if (Array.isArray(value)) return `an array of ${plural(value.length, 'item')}`;
  switch (typeof value) {
    case 'string':
      if (secretLooking || value.length > MAX_ECHOED_CHARS) {
        return value.length === 0
          ? 'an empty string'
          : `a string of ${plural(value.length, 'character')}`;
      }
      return JSON.stringify(value);
    case 'number':
    case 'boolean':
      return secretLooking ? `a ${typeof value}` : JSON.stringify(value);
    case 'object':
      return 'an object';
    default:
      return typeof value;
  }
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

/** `query.page`, `body.keywordGroups.0.groupName`; a caller's long member name is cut. */
function pathText(where: InputPlace, path: readonly Key[]): string {
  return [where, ...path.map((key) => cut(String(key)))].join('.');
}

function cut(key: string): string {
  return key.length > MAX_ECHOED_CHARS ? `${key.slice(0, MAX_ECHOED_CHARS)}…` : key;
}

function valueAt(input: unknown, path: readonly Key[]): unknown {
  let value = input;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<Key, unknown>)[key];
  }
  return value;
}
