/** JSON text in, for every reader of the service: upstream answers, messages, files, callers. */
import { InputError } from './errors.ts';

export type JsonObject = Record<string, unknown>;

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The parsed value, or undefined when the text is not JSON. */
export function parseJsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The parsed object, or undefined when the text is not a JSON object. */
export function jsonObjectOf(text: string): JsonObject | undefined {
  const value = parseJsonOrUndefined(text);
  return isJsonObject(value) ? value : undefined;
}

/** A caller's JSON body, parsed; anything else is a 400 (`100`) naming the body. */
export function callerJson(bytes: Buffer): unknown {
  try {
    return JSON.parse(bytes.toString('utf8')) as unknown;
  } catch {
    throw new InputError([{ path: 'body', issue: 'expected a JSON document' }]);
  }
}

/** A caller's JSON object: `0`, `false`, `null`, a string or an array is a 400 too. */
export function callerJsonObject(bytes: Buffer, issue = 'expected a JSON object'): JsonObject {
  const value = callerJson(bytes);
  if (!isJsonObject(value)) throw new InputError([{ path: 'body', issue }]);
  return value;
}
