import { randomBytes } from 'node:crypto';
import type { GatewayResponse } from '../core/types.ts';
import { endpointJson } from '../gateway/envelope.ts';
import type { ActivationRecord, ActivationStatus } from './types.ts';

/** OpenWhisk names the activation of an answer in this header (on 200, 202 and 502). */
export const ACTIVATION_ID_HEADER = 'x-openwhisk-activation-id';

/** OpenWhisk's own messages, for the refusals the emulator reproduces. */
export const WHISK_MESSAGES = {
  unsupportedContentType:
    "The request's Content-Type is not supported. Expected:\napplication/json",
  jsonObjectExpected: 'The request content was malformed:\nJSON object expected',
  malformedJson: 'The request content was malformed:\nThe body is not valid JSON.',
  // spray-json's own words (its parser's maxNesting, 1000 by default), as the controller wraps them.
  nestedTooDeep:
    'The request content was malformed:\nJSON input nested too deeply:JSON input was nested more deeply than the configured limit of maxNesting = 1000',
  parametersNotAllowed:
    'Request defines parameters that are not allowed (e.g., reserved properties).',
  invalidHttpResponse: "Response is not valid 'message/http'.",
  httpContentTypeError: 'Response type in header did not match generated content type.',
  errorProcessingRequest: 'There was an error processing your request.',
  propertyNotFound: 'Response does not include requested property.',
  responseNotReady: 'Response not yet ready.',
} as const;

/** OpenWhisk's `code` is the request's transaction id: 32 letters and digits. */
function transactionId(): string {
  return randomBytes(24).toString('base64url').replaceAll(/[-_]/g, '0').slice(0, 32);
}

/** An error the OpenWhisk controller answers itself: {"error": "...", "code": "<transid>"}. */
export function whiskError(status: number, message: string): GatewayResponse {
  return endpointJson(status, { error: message, code: transactionId() });
}

/** Tags an answer with the activation that produced it. */
export function withActivationId(response: GatewayResponse, activationId: string): GatewayResponse {
  return { ...response, headers: { ...response.headers, [ACTIVATION_ID_HEADER]: activationId } };
}

/** Non-blocking, or blocking past the wait: 202 {"activationId"}. */
export function accepted(activationId: string): GatewayResponse {
  return withActivationId(endpointJson(202, { activationId }), activationId);
}

/** OpenWhisk's HTTP status for a finished blocking activation (Actions.scala doInvoke). */
function statusForActivation(status: ActivationStatus): number {
  if (status === 'success') return 200;
  if (status === 'whisk_internal_error') return 500;
  return 502;
}

/** A finished blocking activation: the result only (`result=true`) or the whole record. */
export function completed(record: ActivationRecord, resultOnly: boolean): GatewayResponse {
  const body = resultOnly ? record.response.result : record;
  const status = statusForActivation(record.response.status);
  return withActivationId(endpointJson(status, body), record.activationId);
}
