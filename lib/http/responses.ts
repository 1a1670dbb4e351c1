/**
 * Building Lambda proxy results from upstream answers, with the headers that keep a browser from
 * reading an answer as something else: `X-Content-Type-Options: nosniff` on every answer, and on
 * a body passed through from the platform (this service did not write it: a report, an action's
 * answer, a catalogue product's) `Content-Security-Policy: default-src 'none'`, so that HTML or
 * SVG from an endpoint runs nothing on this API's origin. A report comes as an attachment.
 */
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { AnswerHead } from '../core/call-context.ts';
import { UpstreamResponseTooLargeError } from '../core/errors.ts';
import { mediaType } from '../core/headers.ts';
import type { UpstreamAnswer } from '../upstream/client.ts';

export type HttpResponse = APIGatewayProxyStructuredResultV2;

/** On every answer: the browser takes the Content-Type as sent and never sniffs another. */
const NOSNIFF = { name: 'x-content-type-options', value: 'nosniff' } as const;
/** On every body passed through: nothing in it may load, run or frame anything. */
const PASSED_THROUGH_CSP = {
  name: 'content-security-policy',
  value: "default-src 'none'",
} as const;

/** The answer's header of this name, whatever its case. */
function hasHeader(headers: HttpResponse['headers'], name: string): boolean {
  return Object.keys(headers ?? {}).some((key) => key.toLowerCase() === name);
}

/**
 * Headers every answer to one request carries beside its own, whichever step gives it (the
 * handler, the error envelope, the guard's 504): those the request earned on its way, its
 * plans' RateLimit fields. Carried by the steps that know them (the admission, a bulk meter),
 * put on the answer in one place (withAnswerHeaders).
 */
export class CarriedHeaders {
  /** What the request carries so far; none until a step carries some. */
  headers: Readonly<Record<string, string>> | undefined;

  /** From now on, every answer to the request carries these too (the latest value wins). */
  carry(headers: Readonly<Record<string, string>>): void {
    this.headers = { ...this.headers, ...headers };
  }
}

/**
 * An answer with `X-Content-Type-Options: nosniff` (kept as it is when it has it, in any case)
 * and the headers its request carries, under its own. The one place for both: the stack applies
 * it to every answer it gives, a handler's own included.
 */
export function withAnswerHeaders(
  response: HttpResponse,
  carried?: Readonly<Record<string, string>>,
): HttpResponse {
  const sniffs = !hasHeader(response.headers, NOSNIFF.name);
  if (!sniffs && !carried) return response;
  const nosniff = sniffs ? { [NOSNIFF.name]: NOSNIFF.value } : undefined;
  return { ...response, headers: { ...carried, ...response.headers, ...nosniff } };
}

const TEXT_TYPES =
  /^(text\/|application\/([a-z0-9.+-]*\+)?(json|xml|javascript|x-www-form-urlencoded))/;

/**
 * Lambda refuses a synchronous response whose JSON is over 6 MiB and 100 bytes ("Exceeded
 * maximum allowed payload size (6291556 bytes)", its runtime's own error): the 6 MB of its
 * quotas page, to the byte (docs/errors.md, "Answers of any size").
 */
const LAMBDA_RESPONSE_LIMIT_BYTES = 6 * 1024 * 1024 + 100;
/**
 * Kept for the headers the stack adds after the handler (the usage plans' RateLimit fields);
 * a test measures the largest it adds.
 */
const STACK_HEADERS_BYTES = 2048;
/**
 * Kept besides, when a route that hands off decides from the upstream answer alone: for the
 * headers its handler adds (a report's Content-Disposition, an action's activation id).
 */
const HANDLER_HEADERS_BYTES = 2048;

/**
 * The upstream's body and Content-Type, byte for byte. Text that is valid UTF-8 goes as a
 * string; anything else is base64 with `isBase64Encoded`, which API Gateway decodes again. An
 * answer that would not fit in a Lambda response is refused whole (502/`520`); a route that
 * hands off stored it instead (hand-off.ts).
 */
export function passThrough(
  upstream: UpstreamAnswer,
  statusCode = upstream.status,
  /** Headers of the answer that go back too, when it has them (lower-case names). */
  keptHeaders: readonly string[] = [],
  /** Bytes of the response kept for headers added after it. */
  reserveBytes = STACK_HEADERS_BYTES,
): HttpResponse {
  const contentType = upstream.headers['content-type'] ?? 'application/octet-stream';
  const headers: Record<string, string> = { 'content-type': contentType };
  for (const name of keptHeaders) {
    const value = upstream.headers[name];
    if (value !== undefined) headers[name] = value;
  }
  // Ours, whatever the upstream kept: they are about this origin, not the endpoint's.
  headers[NOSNIFF.name] = NOSNIFF.value;
  headers[PASSED_THROUGH_CSP.name] = PASSED_THROUGH_CSP.value;
  let result: HttpResponse | undefined;
  if (TEXT_TYPES.test(mediaType(contentType))) {
    const text = upstream.body.toString('utf8');
    if (Buffer.byteLength(text, 'utf8') === upstream.body.length && !text.includes('\uFFFD')) {
      result = { statusCode, headers, body: text };
    }
  }
  result ??= { statusCode, headers, body: upstream.body.toString('base64'), isBase64Encoded: true };
  if (
    // Escaped, a character takes at most 6 bytes: a body this short always fits.
    (result.body?.length ?? 0) > LAMBDA_RESPONSE_LIMIT_BYTES / 8 &&
    Buffer.byteLength(JSON.stringify(result), 'utf8') + reserveBytes > LAMBDA_RESPONSE_LIMIT_BYTES
  ) {
    throw new UpstreamResponseTooLargeError(LAMBDA_RESPONSE_LIMIT_BYTES);
  }
  return result;
}

/** The most a route that hands off lets its response's body take, room for every header kept. */
const BODY_ROOM_BYTES = LAMBDA_RESPONSE_LIMIT_BYTES - STACK_HEADERS_BYTES - HANDLER_HEADERS_BYTES;

/**
 * How much of a success answer a route that hands off reads into memory: past this, it cannot
 * fit the response, and it is stored as it arrives. Text may fit up to the body's room; any
 * other type goes in base64, a third larger.
 */
export function readLimitOf(answer: AnswerHead): number {
  return TEXT_TYPES.test(mediaType(answer.headers['content-type'] ?? ''))
    ? BODY_ROOM_BYTES
    : Math.floor(BODY_ROOM_BYTES / 4) * 3;
}

/**
 * Whether an answer read whole goes back as it is on a route that hands off: passed through, its
 * response fits with room for the headers its handler and the stack add.
 */
export function fitsResponse(answer: AnswerHead & { readonly body: Buffer }): boolean {
  // Short enough, as text or in base64, for passThrough not to measure it (most answers).
  if (answer.body.length <= (LAMBDA_RESPONSE_LIMIT_BYTES * 3) / 32) return true;
  try {
    passThrough({ ...answer, attempts: 1 }, 200, [], STACK_HEADERS_BYTES + HANDLER_HEADERS_BYTES);
    return true;
  } catch {
    return false;
  }
}

/** The header of a handed-off answer (303) that gives the stored answer's length in bytes. */
export const ANSWER_LENGTH = 'answer-length';

/** The bytes of the answer a 303 handed off (hand-off.ts); 0 for any other answer. */
export function handedOffBytes(response: HttpResponse): number {
  return response.statusCode === 303 ? Number(response.headers?.[ANSWER_LENGTH]) || 0 : 0;
}

export function json(statusCode: number, value: unknown): HttpResponse {
  return {
    statusCode,
    headers: { 'content-type': 'application/json', [NOSNIFF.name]: NOSNIFF.value },
    body: JSON.stringify(value),
  };
}

/** A file name's extension for a report's media type; none for a type not listed. */
const REPORT_EXTENSIONS: Readonly<Record<string, string>> = {
  'application/json': 'json',
  'application/pdf': 'pdf',
  'application/xml': 'xml',
  'application/zip': 'zip',
  'text/csv': 'csv',
  'text/html': 'html',
  'text/plain': 'txt',
  'text/xml': 'xml',
};

/**
 * The Content-Disposition of a job's report, as an attachment: `report-<instanceId>.<ext>`.
 *
 * @param instanceId the validated path parameter (letters, digits, `_`, `-`: nothing to quote)
 */
export function reportDisposition(instanceId: string, contentType: string | undefined): string {
  const extension = REPORT_EXTENSIONS[mediaType(contentType ?? '')];
  const filename = `report-${instanceId.replace(/[^A-Za-z0-9_-]/g, '_')}${extension ? `.${extension}` : ''}`;
  return `attachment; filename="${filename}"`;
}

/**
 * A finished job's report, byte for byte (as passThrough), as an attachment: a browser saves it
 * rather than shows it on this API's origin. (A report handed off is stored with the same
 * Content-Disposition: its route's hand-off says so.)
 */
export function reportResponse(upstream: UpstreamAnswer, instanceId: string): HttpResponse {
  const response = passThrough(upstream, 200);
  return {
    ...response,
    headers: {
      ...response.headers,
      'content-disposition': reportDisposition(instanceId, upstream.headers['content-type']),
    },
  };
}
