/**
 * Web actions as OpenWhisk runs them (WebActions.scala): the HTTP
 * request becomes the action's params, and the action's {statusCode, headers, body} result
 * becomes the HTTP response (the `.http` media extension, the default).
 */
import type { GatewayRequest, GatewayResponse } from '../core/types.ts';
import { mediaType } from '../gateway/envelope.ts';
import { isJsonObject, type Parsed, parseJson } from './invoke-request.ts';
import type { ActivationRecord, JsonObject } from './types.ts';
import { WHISK_MESSAGES, whiskError } from './whisk-responses.ts';

/** The methods a web action accepts through the gateway's HTTP-type resource. */
export const WEB_METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH', 'HEAD'] as const;

const OW_PREFIX = '__ow_';

function isJsonFamily(type: string): boolean {
  return type === 'application/json' || type.endsWith('+json');
}

/**
 * Whether a media type carries bytes rather than text (akka-http's "binary" types, which
 * OpenWhisk base64-encodes). A body with no Content-Type is application/octet-stream.
 */
export function isBinaryMediaType(type: string): boolean {
  if (type === '') return true;
  if (type.startsWith('text/')) return false;
  if (isJsonFamily(type) || type.endsWith('+xml')) return false;
  return ![
    'application/xml',
    'application/javascript',
    'application/x-www-form-urlencoded',
  ].includes(type);
}

/** The first value of each query parameter, as strings. */
function queryParams(query: URLSearchParams): JsonObject {
  const params: JsonObject = {};
  for (const name of query.keys()) params[name] ??= query.get(name);
  return params;
}

/** A request body as a non-raw web action sees it. */
interface WebBody {
  /** A JSON object's or a form's fields, merged into the params. */
  readonly fields: JsonObject;
  /** Any other body, handed over as `__ow_body`. */
  readonly opaque?: unknown;
}

/**
 * The body as OpenWhisk hands it to a non-raw web action: a JSON object or a form is merged
 * into the params; any other JSON value, or text, arrives as `__ow_body`; bytes arrive as
 * base64 in `__ow_body`.
 */
function webBody(request: GatewayRequest): Parsed<WebBody> {
  if (request.body.length === 0) return { ok: true, value: { fields: {} } };
  const type = mediaType(request.headers['content-type']);
  if (isJsonFamily(type)) {
    const parsed = parseJson(request.body.toString('utf8'));
    if (!parsed.ok) return parsed;
    const value = isJsonObject(parsed.value)
      ? { fields: parsed.value }
      : { fields: {}, opaque: parsed.value };
    return { ok: true, value };
  }
  if (type === 'application/x-www-form-urlencoded') {
    const form = new URLSearchParams(request.body.toString('utf8'));
    return { ok: true, value: { fields: queryParams(form) } };
  }
  const opaque = isBinaryMediaType(type)
    ? request.body.toString('base64')
    : request.body.toString('utf8');
  return { ok: true, value: { fields: {}, opaque } };
}

/**
 * The params of a web action: `__ow_method` (lower case), `__ow_headers`, `__ow_path` (what
 * follows the resource), then the query's params, then the body's (the last wins). A caller
 * may not set the reserved `__ow_` params itself.
 */
export function webActionParams(request: GatewayRequest, resourcePath: string): Parsed<JsonObject> {
  const query = queryParams(request.query);
  const body = webBody(request);
  if (!body.ok) return body;
  const callerKeys = [...Object.keys(query), ...Object.keys(body.value.fields)];
  if (callerKeys.some((key) => key.startsWith(OW_PREFIX))) {
    return { ok: false, status: 400, message: WHISK_MESSAGES.parametersNotAllowed };
  }
  return {
    ok: true,
    value: {
      __ow_method: request.method.toLowerCase(),
      __ow_headers: { ...request.headers },
      __ow_path: request.path.slice(resourcePath.length),
      ...query,
      ...body.value.fields,
      ...(body.value.opaque === undefined ? {} : { __ow_body: body.value.opaque }),
    },
  };
}

type Headers = Record<string, string>;

/** Framing headers belong to the gateway's own answer, never to what an action says. */
const FRAMING_HEADERS = new Set(['content-length', 'transfer-encoding', 'connection']);

function headerValues(value: unknown): string[] | undefined {
  if (typeof value === 'string') return [value];
  if (typeof value === 'number' || typeof value === 'boolean') return [String(value)];
  if (!Array.isArray(value)) return undefined;
  const values = value.map(headerValues);
  return values.every((inner) => inner !== undefined) ? values.flat() : undefined;
}

/** The result's `headers`, names lower-cased; undefined when one is not a header value. */
function resultHeaders(value: unknown): Headers | undefined {
  if (value === undefined) return {};
  if (!isJsonObject(value)) return undefined;
  const headers: Headers = {};
  for (const [name, raw] of Object.entries(value)) {
    const values = headerValues(raw);
    if (!values) return undefined;
    const lower = name.toLowerCase();
    if (!FRAMING_HEADERS.has(lower)) headers[lower] = values.join(', ');
  }
  return headers;
}

function resultStatus(value: unknown): number | undefined | 'invalid' {
  if (value === undefined) return undefined;
  const code = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  if (typeof code === 'number' && Number.isInteger(code) && code >= 100 && code <= 599) {
    return code;
  }
  return 'invalid';
}

function withoutContentType(headers: Headers): Headers {
  const { 'content-type': _dropped, ...rest } = headers;
  return rest;
}

function endpoint(status: number, headers: Headers, body?: Buffer | string): GatewayResponse {
  return { status, headers, body, origin: 'ENDPOINT' };
}

/** A text body as text in its charset (UTF-8), bytes decoded from base64. */
function stringBody(status: number, headers: Headers, body: string): GatewayResponse {
  const contentType = headers['content-type'] ?? 'text/html';
  const type = mediaType(contentType);
  const rest = withoutContentType(headers);
  if (isBinaryMediaType(type)) {
    return endpoint(status, { ...rest, 'content-type': contentType }, Buffer.from(body, 'base64'));
  }
  const withCharset = /;\s*charset=/i.test(contentType)
    ? contentType
    : `${contentType}; charset=UTF-8`;
  return endpoint(status, { ...rest, 'content-type': withCharset }, body);
}

/** A JSON value as the body: only a JSON-family Content-Type (or none) fits it. */
function jsonBody(status: number, headers: Headers, body: unknown): GatewayResponse {
  const type = mediaType(headers['content-type'] ?? 'application/json');
  if (!isJsonFamily(type)) return whiskError(400, WHISK_MESSAGES.httpContentTypeError);
  const contentType = type === 'application/json' ? 'application/json' : `${type}; charset=UTF-8`;
  return endpoint(
    status,
    { ...withoutContentType(headers), 'content-type': contentType },
    JSON.stringify(body),
  );
}

/** OpenWhisk's `.http` transcoder: {statusCode, headers, body} to an HTTP response. */
export function httpResponseOf(result: unknown): GatewayResponse {
  if (!isJsonObject(result)) return whiskError(400, WHISK_MESSAGES.invalidHttpResponse);
  const headers = resultHeaders(result['headers']);
  const status = resultStatus(result['statusCode']);
  if (!headers || status === 'invalid') {
    return whiskError(400, WHISK_MESSAGES.invalidHttpResponse);
  }
  const body = result['body'];
  if (body === undefined || body === null || body === '') {
    return endpoint(status ?? 204, withoutContentType(headers));
  }
  if (typeof body === 'string') return stringBody(status ?? 200, headers, body);
  return jsonBody(status ?? 200, headers, body);
}

/**
 * A finished web activation as HTTP: a success's result, or an application error's `error`
 * value, goes through the `.http` transcoder; a developer or platform error is a 400.
 */
export function webResponseOf(record: ActivationRecord): GatewayResponse {
  const { status, result } = record.response;
  if (status === 'success') return httpResponseOf(result);
  if (status === 'application_error') {
    if (!Object.hasOwn(result, 'error')) return whiskError(404, WHISK_MESSAGES.propertyNotFound);
    return httpResponseOf(result['error']);
  }
  return whiskError(400, WHISK_MESSAGES.errorProcessingRequest);
}
