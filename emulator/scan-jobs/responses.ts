import type { GatewayResponse } from '../core/types.ts';
import { endpointJson } from '../gateway/envelope.ts';

/** The success body of cancel and stop. */
const WSC_REQUEST_SUCCESS = {
  returnCode: '0',
  returnDesc: 'Request Success',
  returnMessage: 'Success',
  resources: null,
} as const;

/** The scan job backend's one documented failure; its errorCode is a number, as the real one. */
const WSC_API_CALL_FAIL = { error: { errorCode: 901, message: 'API Call Fail' } } as const;

export function apiCallFail(): GatewayResponse {
  return endpointJson(400, WSC_API_CALL_FAIL);
}

export function requestSuccess(): GatewayResponse {
  return endpointJson(200, WSC_REQUEST_SUCCESS);
}
