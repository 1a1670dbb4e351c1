/** Answers of the catalogue's backends, in the shapes the platform's products use. */
import type { GatewayResponse } from '../core/types.ts';
import { endpointJson } from '../gateway/envelope.ts';
import { gatewayError } from '../gateway/error-table.ts';

/** The AI products' own error shape (Papago, CLOVA): `{"errorMessage","errorCode"}`. */
export function legacyError(status: number, errorCode: string, errorMessage: string) {
  return endpointJson(status, { errorMessage, errorCode });
}

/**
 * For products whose own error codes are not public (short URL, search trend, directions input,
 * CAPTCHA parameters): the gateway's 400/100 envelope with the reason in `details`, sent by the
 * backend.
 */
export function badRequest(details: string): GatewayResponse {
  const { errorCode, message } = gatewayError('100');
  return endpointJson(400, { error: { errorCode, message, details } });
}

/** Maps refuse bad parameters with a bare status and no body. */
export function emptyStatus(status: number): GatewayResponse {
  return { status, origin: 'ENDPOINT' };
}

export function binary(contentType: string, body: Buffer): GatewayResponse {
  return { status: 200, headers: { 'content-type': contentType }, body, origin: 'ENDPOINT' };
}

export function xmlResponse(status: number, body: string): GatewayResponse {
  return {
    status,
    headers: { 'content-type': 'application/xml;charset=UTF-8' },
    body,
    origin: 'ENDPOINT',
  };
}

export { endpointJson };
