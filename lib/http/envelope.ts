/**
 * The uniform error envelope: every ServiceError encoded in JSON or XML, by content negotiation.
 * The one encoder: the functions' middy stack and the local server's own refusals both use it.
 */
import type { InputIssue, ServiceError } from '../core/errors.ts';
import { type HeaderMap, mediaType } from '../core/headers.ts';

type ErrorFormat = 'json' | 'xml';

const XML_TYPES = new Set(['text/xml', 'application/xml']);
const JSON_TYPES = new Set(['application/json']);

/**
 * XML when the caller sends XML (`Content-Type: application/xml`) or asks for it
 * (`Accept: text/xml`, preferred over any JSON type it also lists); JSON otherwise.
 */
export function negotiateErrorFormat(headers: HeaderMap): ErrorFormat {
  if (XML_TYPES.has(mediaType(headers['content-type'] ?? ''))) return 'xml';
  return bestOf(headers.accept ?? '') ?? 'json';
}

function bestOf(accept: string): ErrorFormat | undefined {
  let best: { format: ErrorFormat; q: number } | undefined;
  for (const range of accept.split(',')) {
    const [type = '', ...params] = range.split(';');
    const media = type.trim().toLowerCase();
    const format = XML_TYPES.has(media) ? 'xml' : JSON_TYPES.has(media) ? 'json' : undefined;
    if (!format) continue;
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const q = qParam ? Number(qParam.slice(2)) : 1;
    if (q > 0 && (!best || q > best.q)) best = { format, q };
  }
  return best?.format;
}

interface EncodedError {
  readonly statusCode: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

export function encodeError(error: ServiceError, format: ErrorFormat): EncodedError {
  // Every answer says its type is the one sent (lib/http/responses.ts has the why).
  const headers = { ...error.headers, 'X-Content-Type-Options': 'nosniff' };
  if (format === 'xml') {
    return {
      statusCode: error.status,
      headers: { ...headers, 'Content-Type': 'text/xml' },
      body:
        '<?xml version="1.0" encoding="UTF-8"?><result><error>' +
        `<errorCode>${escapeXml(error.code)}</errorCode>` +
        `<message>${escapeXml(error.message)}</message>` +
        xmlDetails(error.details) +
        '</error></result>',
    };
  }
  const envelope: { errorCode: string; message: string; details?: unknown } = {
    errorCode: error.code,
    message: error.message,
  };
  if (error.details !== undefined) envelope.details = error.details;
  return {
    statusCode: error.status,
    headers: { ...headers, 'Content-Type': 'application/json' },
    body: JSON.stringify({ error: envelope }),
  };
}

/**
 * The XML form of `details`, after `<message>`, so that a caller asking for XML learns what one
 * asking for JSON does: a text, or one `<item><path>..</path><issue>..</issue></item>` per input
 * issue; nothing when there are none.
 */
function xmlDetails(details: string | readonly InputIssue[] | undefined): string {
  if (details === undefined) return '';
  if (typeof details === 'string') return `<details>${escapeXml(details)}</details>`;
  let items = '';
  for (const { path, issue } of details) {
    items += `<item><path>${escapeXml(path)}</path><issue>${escapeXml(issue)}</issue></item>`;
  }
  return `<details>${items}</details>`;
}

const XML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
};

/**
 * What XML 1.0 forbids even escaped (its Char production): most C0 controls, lone surrogates,
 * U+FFFE and U+FFFF. A key name the caller sent may hold them; each becomes U+FFFD, so the
 * envelope stays a document any XML parser reads.
 */
const NOT_XML_CHAR = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

function escapeXml(value: string): string {
  return value.replace(NOT_XML_CHAR, '\uFFFD').replace(/[&<>"']/g, (c) => XML_ESCAPES[c] ?? c);
}
