/** Reading an API Gateway HTTP API (payload v2) request: headers, query, body bytes. */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { HeaderMap } from '../core/headers.js';

/** Header names lower-cased (API Gateway already does; local emulation may not). */
export function headersOf(event: APIGatewayProxyEventV2): HeaderMap {
  const headers: Record<string, string | undefined> = {};
  const given = event.headers ?? {};
  for (const name in given) headers[name.toLowerCase()] = given[name];
  return headers;
}

type QueryValues = Record<string, string | string[]>;

/**
 * A query string that decodes to itself: printable ASCII with no `%` and no `+`. Split on `&`
 * and `=` as text, it gives what URLSearchParams gives.
 */
const PLAIN_QUERY = /^[\x21-\x24\x26-\x2a\x2c-\x7e]*$/;

/** The query string as sent; a repeated key becomes an array, in order. */
export function queryOf(event: APIGatewayProxyEventV2): QueryValues {
  const raw = event.rawQueryString ?? '';
  const values: QueryValues = {};
  const add = (key: string, value: string) => {
    if (!Object.hasOwn(values, key)) {
      // Defined, not assigned: `__proto__` is a key like any other.
      if (key === '__proto__')
        Object.defineProperty(values, key, {
          value,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      else values[key] = value;
      return;
    }
    const existing = values[key]!;
    values[key] = Array.isArray(existing) ? [...existing, value] : [existing, value];
  };
  if (!PLAIN_QUERY.test(raw)) {
    for (const [key, value] of new URLSearchParams(raw)) add(key, value);
    return values;
  }
  // Every route's own query (page=1&limit=10), on every request: no decoding to do.
  for (const pair of raw.split('&')) {
    if (pair === '') continue;
    const equals = pair.indexOf('=');
    if (equals === -1) add(pair, '');
    else add(pair.slice(0, equals), pair.slice(equals + 1));
  }
  return values;
}

/** Size in bytes of the body as the caller sent it (base64 is decoded arithmetically). */
export function bodyByteLength(event: Pick<APIGatewayProxyEventV2, 'body' | 'isBase64Encoded'>) {
  const body = event.body;
  if (body === undefined || body === null) return 0;
  if (!event.isBase64Encoded) return Buffer.byteLength(body, 'utf8');
  const padding = body.endsWith('==') ? 2 : body.endsWith('=') ? 1 : 0;
  return Math.floor((body.length * 3) / 4) - padding;
}

/** The body's bytes, decoded from base64 when API Gateway encoded them. */
export function bodyBytes(event: Pick<APIGatewayProxyEventV2, 'body' | 'isBase64Encoded'>): Buffer {
  const body = event.body ?? '';
  return Buffer.from(body, event.isBase64Encoded ? 'base64' : 'utf8');
}
