/** Building Lambda proxy results from upstream answers. */
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { UpstreamResponseTooLargeError } from '../core/errors.js';
import { mediaType } from '../core/headers.js';
import { LAMBDA_PAYLOAD_LIMIT_BYTES } from '../core/lambda-limits.js';
import type { UpstreamAnswer } from '../upstream/client.js';

export type HttpResponse = APIGatewayProxyStructuredResultV2;

const TEXT_TYPES =
  /^(text\/|application\/([a-z0-9.+-]*\+)?(json|xml|javascript|x-www-form-urlencoded))/;

/**
 * A Lambda function's synchronous answer, serialized as JSON, is at most 6 MB. Bodies well
 * below it are not measured; above half of it the serialized size is (escaping can grow text).
 */
const LAMBDA_RESPONSE_LIMIT_BYTES = LAMBDA_PAYLOAD_LIMIT_BYTES;

/**
 * The upstream's body and Content-Type, byte for byte. Text that is valid UTF-8 goes as a
 * string; anything else is base64 with `isBase64Encoded`, which API Gateway decodes again. An
 * answer that would not fit in a Lambda response is refused whole (502/`520`).
 */
export function passThrough(
  upstream: UpstreamAnswer,
  statusCode = upstream.status,
  /** Headers of the answer that go back too, when it has them (lower-case names). */
  keptHeaders: readonly string[] = [],
): HttpResponse {
  const contentType = upstream.headers['content-type'] ?? 'application/octet-stream';
  const headers: Record<string, string> = { 'content-type': contentType };
  for (const name of keptHeaders) {
    const value = upstream.headers[name];
    if (value !== undefined) headers[name] = value;
  }
  let result: HttpResponse | undefined;
  if (TEXT_TYPES.test(mediaType(contentType))) {
    const text = upstream.body.toString('utf8');
    if (Buffer.byteLength(text, 'utf8') === upstream.body.length && !text.includes('\uFFFD')) {
      result = { statusCode, headers, body: text };
    }
  }
  result ??= { statusCode, headers, body: upstream.body.toString('base64'), isBase64Encoded: true };
  if (
    (result.body?.length ?? 0) > LAMBDA_RESPONSE_LIMIT_BYTES / 2 &&
    Buffer.byteLength(JSON.stringify(result), 'utf8') > LAMBDA_RESPONSE_LIMIT_BYTES
  ) {
    throw new UpstreamResponseTooLargeError(LAMBDA_RESPONSE_LIMIT_BYTES);
  }
  return result;
}

export function json(statusCode: number, value: unknown): HttpResponse {
  return {
    statusCode,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(value),
  };
}
