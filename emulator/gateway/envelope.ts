import type { GatewayResponse, RequestHeaders } from '../core/types.ts';
import type { GatewayError } from './error-table.ts';

export const JSON_CONTENT_TYPE = 'application/json;charset=UTF-8';
export const XML_CONTENT_TYPE = 'text/xml;charset=UTF-8';

/** The media type of a Content-Type header, lower case, parameters dropped. */
export function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

/** The gateway answers errors in XML for Accept text/xml (or application/xml), or an XML body. */
export function wantsXml(headers: RequestHeaders): boolean {
  const accept = (headers['accept'] ?? '').toLowerCase();
  if (accept.includes('text/xml') || accept.includes('application/xml')) return true;
  return mediaType(headers['content-type']) === 'application/xml';
}

export function escapeXml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&apos;');
}

function jsonEnvelope(error: GatewayError): string {
  const { errorCode, message, details } = error;
  return JSON.stringify({
    error: details === undefined ? { errorCode, message } : { errorCode, message, details },
  });
}

// The spec shows both `result` and `Message` roots; `Message` is the one the platform's docs infer.
function xmlEnvelope(error: GatewayError): string {
  return (
    '<?xml version="1.0" encoding="UTF-8"?>' +
    `<Message><error><errorCode>${escapeXml(error.errorCode)}</errorCode>` +
    `<message>${escapeXml(error.message)}</message></error></Message>`
  );
}

/** The gateway's own answer for an error, in the format the request asks for. */
export function gatewayErrorResponse(
  error: GatewayError,
  requestHeaders: RequestHeaders,
): GatewayResponse {
  const xml = wantsXml(requestHeaders);
  return {
    status: error.status,
    headers: { 'content-type': xml ? XML_CONTENT_TYPE : JSON_CONTENT_TYPE },
    body: xml ? xmlEnvelope(error) : jsonEnvelope(error),
    origin: 'APIGW',
  };
}

/** A JSON answer from a backend behind the gateway. */
export function endpointJson(status: number, value: unknown): GatewayResponse {
  return {
    status,
    headers: { 'content-type': JSON_CONTENT_TYPE },
    body: JSON.stringify(value),
    origin: 'ENDPOINT',
  };
}
