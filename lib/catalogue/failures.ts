/**
 * Failures the platform reports inside a 200 body: they become the
 * uniform envelope with status 400 and the upstream's own code. An empty result is not a
 * failure. Bodies that cannot be read are passed through: a decoder never invents an error.
 */

import { UpstreamError } from '../core/errors.ts';
import { jsonObjectOf } from '../core/json.ts';
import type { UpstreamAnswer } from '../upstream/client.ts';
import { decodeUpstreamError, fieldsOf } from '../upstream/error-decoding.ts';

const FAILURE_STATUS = 400;

function jsonObject(response: UpstreamAnswer): Record<string, unknown> | undefined {
  const text = response.body.toString('utf8').trim();
  return text.startsWith('{') ? jsonObjectOf(text) : undefined;
}

function failure(code: string, message: string | undefined): UpstreamError {
  return new UpstreamError({ status: FAILURE_STATUS, code, message: message || code });
}

/** Geocoding (and place search): `status` other than `OK`, e.g. `INVALID_REQUEST`. */
export function statusNotOk(response: UpstreamAnswer): UpstreamError | undefined {
  const body = jsonObject(response);
  const status = body?.status;
  if (typeof status !== 'string' || status === 'OK') return undefined;
  const message = typeof body?.errorMessage === 'string' ? body.errorMessage : undefined;
  return failure(status, message);
}

/** Directions: `code` other than 0 (1 = start equals goal, 2..5 = no route, ...). */
export function directionsCodeNotZero(response: UpstreamAnswer): UpstreamError | undefined {
  const body = jsonObject(response);
  const code = body?.code;
  if (typeof code !== 'number' || code === 0) return undefined;
  return failure(String(code), typeof body?.message === 'string' ? body.message : undefined);
}

/**
 * Directions errors also come as HTTP 400 `{"error":{"errorCode":400,"code":1,...}}`: the
 * API's own `code` says more than the repeated HTTP status, so it is the code answered.
 */
export function decodeDirectionsError(response: UpstreamAnswer): UpstreamError {
  const decoded = decodeUpstreamError(response);
  const error = jsonObject(response)?.error as Record<string, unknown> | undefined;
  const code = error?.code;
  if (typeof code !== 'number' && typeof code !== 'string') return decoded;
  return new UpstreamError({
    status: decoded.status,
    code: String(code),
    message: decoded.message,
    details: decoded.details,
  });
}

/** Reverse-geocoding result codes that are not failures: 0 ok, 3 no result. */
const REVERSE_GEOCODE_OK = new Set(['0', '3']);

/** Reverse geocoding: `status.code` other than 0 and 3, in JSON or XML (`output=xml`). */
export function reverseGeocodeFailure(response: UpstreamAnswer): UpstreamError | undefined {
  const text = response.body.toString('utf8').trim();
  if (!text.startsWith('{') && !text.startsWith('<')) return undefined;
  // The codec reads `{status:{code,message}}` in JSON and under any XML root alike.
  const body = text.startsWith('{') ? jsonObject(response) : undefined;
  const fields = body
    ? fieldsOf(body)
    : decodeUpstreamError({ status: FAILURE_STATUS, body: text });
  const code = fields.code;
  if (code === undefined || REVERSE_GEOCODE_OK.has(code)) return undefined;
  if (body === undefined && code === String(FAILURE_STATUS)) return undefined; // no code in XML
  return failure(code, fields.message);
}
