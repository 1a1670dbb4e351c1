/** JSON text in, for every reader of the service: upstream answers, messages, files, callers. */

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
