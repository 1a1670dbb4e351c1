import { STATUS_CODES } from 'node:http';

/** The gateway's own error codes. */
export type GatewayErrorCode =
  | '100'
  | '200'
  | '210'
  | '300'
  | '400'
  | '410'
  | '420'
  | '430'
  | '500'
  | '510'
  | '900';

interface GatewayErrorSpec {
  readonly status: number;
  readonly message: string;
}

const GATEWAY_ERRORS: Readonly<Record<GatewayErrorCode, GatewayErrorSpec>> = {
  '100': { status: 400, message: 'Bad Request Exception' },
  '200': { status: 401, message: 'Authentication Failed' },
  '210': { status: 401, message: 'Permission Denied' },
  '300': { status: 404, message: 'Not Found Exception' },
  '400': { status: 429, message: 'Quota Exceeded' },
  '410': { status: 429, message: 'Throttle Limited' },
  '420': { status: 429, message: 'Rate Limited' },
  '430': { status: 413, message: 'Request Entity Too Large' },
  '500': { status: 503, message: 'Endpoint Error' },
  '510': { status: 504, message: 'Endpoint Timeout' },
  '900': { status: 500, message: 'Unexpected Error' },
};

/** An error the gateway answers itself, before or instead of the backend. */
export interface GatewayError {
  readonly status: number;
  readonly errorCode: string;
  readonly message: string;
  /** Live gateway bodies carry a human-readable reason here. */
  readonly details?: string;
}

export function gatewayError(code: GatewayErrorCode, details?: string): GatewayError {
  const spec = GATEWAY_ERRORS[code];
  return { status: spec.status, errorCode: code, message: spec.message, details };
}

function isGatewayErrorCode(code: string): code is GatewayErrorCode {
  return Object.hasOwn(GATEWAY_ERRORS, code);
}

/** The first table code for a status (429 -> 400 Quota Exceeded), when the table has one. */
function defaultErrorCodeFor(status: number): GatewayErrorCode | undefined {
  const codes = Object.keys(GATEWAY_ERRORS) as GatewayErrorCode[];
  return codes.find((code) => GATEWAY_ERRORS[code].status === status);
}

/**
 * An error for any status and code, as a fault may ask for one outside the table: the message
 * comes from the table when the code is known, else from the HTTP reason phrase.
 */
export function arbitraryGatewayError(
  status: number,
  errorCode: string | undefined,
  details?: string,
): GatewayError {
  const code = errorCode ?? defaultErrorCodeFor(status) ?? String(status);
  const message = isGatewayErrorCode(code)
    ? GATEWAY_ERRORS[code].message
    : (STATUS_CODES[status] ?? 'Error');
  return { status, errorCode: code, message, details };
}
