/**
 * The inputs of an ordinary (non-web) invocation and of a trigger fire, read as OpenWhisk's
 * controller reads them: `blocking`, `result` and `timeout` from the query, a JSON object of
 * params from the body.
 */

import type { GatewayRequest } from '../core/types.ts';
import { mediaType } from '../gateway/envelope.ts';
import { depthOf, MAX_JSON_DEPTH } from './json-values.ts';
import type { JsonObject } from './types.ts';
import { WHISK_MESSAGES } from './whisk-responses.ts';

/** The longest a blocking invocation waits before answering 202 (OpenWhisk's default, 60 s). */
export const MAX_BLOCKING_WAIT_MS = 60_000;

export interface InvokeOptions {
  /** Default false: answer 202 {"activationId"} at once. */
  readonly blocking: boolean;
  /** Default false: a blocking answer is the whole activation record. */
  readonly result: boolean;
  /** How long a blocking invocation waits; default and maximum 60000 ms. */
  readonly timeoutMs: number;
}

/** A refusal of the request, with OpenWhisk's status and message. */
interface Refusal {
  readonly status: number;
  readonly message: string;
}

export type Parsed<T> =
  | { readonly ok: true; readonly value: T }
  | ({ readonly ok: false } & Refusal);

const refuse = (status: number, message: string): { ok: false } & Refusal => ({
  ok: false,
  status,
  message,
});

const malformedParameter = (name: string, reason: string) =>
  refuse(400, `The query parameter '${name}' was malformed:\n${reason}`);

/** akka-http's Boolean query parameter: true/yes/on/1 and false/no/off/0, any case. */
function booleanParameter(query: URLSearchParams, name: string): Parsed<boolean> {
  const raw = query.get(name);
  if (raw === null || raw === '') return { ok: true, value: false };
  const lower = raw.toLowerCase();
  if (['true', 'yes', 'on', '1'].includes(lower)) return { ok: true, value: true };
  if (['false', 'no', 'off', '0'].includes(lower)) return { ok: true, value: false };
  return malformedParameter(name, `'${raw}' is not a valid Boolean value`);
}

/** OpenWhisk's `timeout`: whole milliseconds, 1 to 60000. */
function timeoutParameter(query: URLSearchParams): Parsed<number> {
  const raw = query.get('timeout');
  if (raw === null) return { ok: true, value: MAX_BLOCKING_WAIT_MS };
  const value = /^\d{1,9}$/.test(raw) ? Number(raw) : Number.NaN;
  if (value > 0 && value <= MAX_BLOCKING_WAIT_MS) return { ok: true, value };
  return malformedParameter(
    'timeout',
    `Timeout must be number of milliseconds up to ${MAX_BLOCKING_WAIT_MS}.`,
  );
}

export function parseInvokeOptions(query: URLSearchParams): Parsed<InvokeOptions> {
  const blocking = booleanParameter(query, 'blocking');
  if (!blocking.ok) return blocking;
  const result = booleanParameter(query, 'result');
  if (!result.ok) return result;
  const timeout = timeoutParameter(query);
  if (!timeout.ok) return timeout;
  return {
    ok: true,
    value: { blocking: blocking.value, result: result.value, timeoutMs: timeout.value },
  };
}

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A request's JSON body, or the platform's refusal: not JSON, or nested deeper than it parses. */
export function parseJson(text: string): Parsed<unknown> {
  let value: unknown;
  try {
    // V8's JSON.parse keeps its own stack: any depth parses.
    value = JSON.parse(text) as unknown;
  } catch {
    return refuse(400, WHISK_MESSAGES.malformedJson);
  }
  if (depthOf(value) > MAX_JSON_DEPTH) return refuse(400, WHISK_MESSAGES.nestedTooDeep);
  return { ok: true, value };
}

/**
 * The params of an invocation: no body is no params; otherwise the body must be a JSON object
 * sent as application/json (an action takes JSON parameters).
 */
export function parseJsonParams(request: GatewayRequest): Parsed<JsonObject> {
  if (request.body.length === 0) return { ok: true, value: {} };
  if (mediaType(request.headers['content-type']) !== 'application/json') {
    return refuse(415, WHISK_MESSAGES.unsupportedContentType);
  }
  const parsed = parseJson(request.body.toString('utf8'));
  if (!parsed.ok) return parsed;
  if (!isJsonObject(parsed.value)) return refuse(400, WHISK_MESSAGES.jsonObjectExpected);
  return { ok: true, value: parsed.value };
}
