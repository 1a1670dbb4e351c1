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

/** The query string as sent; a repeated key becomes an array, in order. */
export function queryOf(event: APIGatewayProxyEventV2): QueryValues {
  const values: QueryValues = {};
  for (const [key, value] of new URLSearchParams(event.rawQueryString ?? '')) {
    const existing = values[key];
    if (existing === undefined) values[key] = value;
    else values[key] = Array.isArray(existing) ? [...existing, value] : [existing, value];
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
