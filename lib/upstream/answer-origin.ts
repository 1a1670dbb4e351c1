/**
 * Who produced an upstream answer: the platform's gateway or the endpoint behind it (an
 * action, an API). The gateway says so in `x-<vendor>-apigw-response-origin` (APIGW or
 * ENDPOINT). Where that header is absent, an answer counts as the gateway's only when its body
 * is exactly the gateway's error envelope with a code of the gateway's table and that code's
 * status.
 */

import { isJsonObject, jsonObjectOf } from '../core/json.ts';
import { gatewayHeaderNames } from './gateway/header-names.ts';
import type { AnswerOrigin } from './retry-policy.ts';

/** The gateway's own error table: errorCode -> HTTP status. */
const GATEWAY_ERROR_STATUS: Readonly<Record<string, number>> = {
  '100': 400,
  '200': 401,
  '210': 401,
  '300': 404,
  '400': 429,
  '410': 429,
  '420': 429,
  '430': 413,
  '500': 503,
  '510': 504,
  '900': 500,
};

interface AnswerIdentity {
  readonly origin: AnswerOrigin;
  /** The envelope's errorCode, when the body is a gateway-style envelope. */
  readonly errorCode: string | undefined;
}

/** Reads who answered an error. Success answers are never inspected (nothing to decide). */
export function identifyAnswer(
  status: number,
  headers: Readonly<Record<string, string>>,
  body: Buffer,
  vendor: string,
): AnswerIdentity {
  const envelope = gatewayEnvelopeOf(body);
  const errorCode = envelope?.errorCode;
  const header = headers[gatewayHeaderNames(vendor).responseOrigin];
  if (header !== undefined) {
    return { origin: header.trim().toUpperCase() === 'APIGW' ? 'gateway' : 'endpoint', errorCode };
  }
  const shaped =
    envelope !== undefined && status >= 400 && GATEWAY_ERROR_STATUS[envelope.errorCode] === status;
  return { origin: shaped ? 'gateway-shaped' : 'endpoint', errorCode };
}

const ENVELOPE_MEMBERS = new Set(['errorCode', 'message', 'details']);

/**
 * The gateway's JSON envelope `{"error":{"errorCode","message","details"?}}` and nothing else,
 * with errorCode a string or a number; undefined for any other body.
 */
function gatewayEnvelopeOf(body: Buffer): { errorCode: string } | undefined {
  // Cheap first: an envelope is a small JSON object.
  if (body.length === 0 || body.length > 64 * 1024 || body[0] !== 0x7b) return undefined;
  const parsed = jsonObjectOf(body.toString('utf8'));
  if (!parsed || Object.keys(parsed).length !== 1 || !isJsonObject(parsed.error)) {
    return undefined;
  }
  const error = parsed.error;
  if (!Object.keys(error).every((key) => ENVELOPE_MEMBERS.has(key))) return undefined;
  const code = error.errorCode;
  const codeOk = typeof code === 'string' || (typeof code === 'number' && Number.isFinite(code));
  const detailsOk = error.details === undefined || typeof error.details === 'string';
  if (!codeOk || typeof error.message !== 'string' || !detailsOk) return undefined;
  return { errorCode: String(code) };
}
