/** Building Lambda proxy results from upstream answers. */
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { mediaType } from '../errorCodec.js';
import type { UpstreamResponse } from './client.js';

export type HttpResult = APIGatewayProxyStructuredResultV2;

const TEXT_TYPES =
  /^(text\/|application\/([a-z0-9.+-]*\+)?(json|xml|javascript|x-www-form-urlencoded))/;

/**
 * The upstream's body and Content-Type, byte for byte. Text that is valid UTF-8 goes as a
 * string; anything else is base64 with `isBase64Encoded`, which API Gateway decodes again.
 */
export function passThrough(upstream: UpstreamResponse, statusCode = upstream.status): HttpResult {
  const contentType = upstream.headers['content-type'] ?? 'application/octet-stream';
  const headers = { 'content-type': contentType };
  if (TEXT_TYPES.test(mediaType(contentType))) {
    const text = upstream.body.toString('utf8');
    if (Buffer.byteLength(text, 'utf8') === upstream.body.length && !text.includes('\uFFFD')) {
      return { statusCode, headers, body: text };
    }
  }
  return { statusCode, headers, body: upstream.body.toString('base64'), isBase64Encoded: true };
}

export function json(statusCode: number, value: unknown): HttpResult {
  return {
    statusCode,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(value),
  };
}
