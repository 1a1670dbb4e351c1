import type { GatewayRequest } from '../core/types.ts';
import type { EmulatorCredentials } from '../credentials.ts';
import { constantTimeEqual } from './constant-time.ts';
import { type GatewayError, gatewayError } from './error-table.ts';
import { MAX_CLOCK_SKEW_MS } from './limits.ts';
import { verifySignatureV2 } from './signature-v2.ts';
import type { VendorHeaders } from './vendor-headers.ts';

/** Decides whether the gateway lets a request through; undefined means it may pass. */
export type Authenticator = (request: GatewayRequest) => GatewayError | undefined;

export const AUTH_DETAILS = {
  missing: 'Authentication information are missing.',
  malformedTimestamp:
    'Invalid timestamp: it must be the milliseconds since the epoch as a decimal integer.',
  skewedTimestamp: 'Invalid timestamp: it differs from the gateway clock by 5 minutes or more.',
  unknownAccessKey: 'Invalid access key.',
  inactiveAccessKey: 'The access key is inactive.',
  badSignature: 'Invalid authentication information.',
  missingApiKey: 'The API key is missing.',
  unknownApiKey: 'Invalid API key.',
  inactiveApiKey: 'The API key is inactive.',
} as const;

const refuse = (details: string): GatewayError => gatewayError('200', details);

function checkTimestamp(timestamp: string, gatewayNow: number): GatewayError | undefined {
  if (!/^\d{1,16}$/.test(timestamp)) return refuse(AUTH_DETAILS.malformedTimestamp);
  if (Math.abs(gatewayNow - Number(timestamp)) >= MAX_CLOCK_SKEW_MS) {
    return refuse(AUTH_DETAILS.skewedTimestamp);
  }
  return undefined;
}

/** The secret key of an active access key, or the refusal. */
function secretKeyOf(
  credentials: EmulatorCredentials,
  accessKey: string,
): { readonly secretKey: string } | { readonly refusal: GatewayError } {
  const pair = credentials.accessKeys.find((candidate) => candidate.accessKey === accessKey);
  if (!pair) return { refusal: refuse(AUTH_DETAILS.unknownAccessKey) };
  if (!pair.active) return { refusal: refuse(AUTH_DETAILS.inactiveAccessKey) };
  return { secretKey: pair.secretKey };
}

function checkApiKey(
  credentials: EmulatorCredentials,
  apiKey: string | undefined,
): GatewayError | undefined {
  if (!credentials.requireApiKey) return undefined;
  if (apiKey === undefined || apiKey === '') return refuse(AUTH_DETAILS.missingApiKey);
  const known = credentials.apiKeys.find((candidate) => constantTimeEqual(candidate.key, apiKey));
  if (!known) return refuse(AUTH_DETAILS.unknownApiKey);
  if (!known.active) return refuse(AUTH_DETAILS.inactiveApiKey);
  return undefined;
}

/**
 * Signature v2 (IAM) authentication, as the scan job API demands. `credentials` is read on
 * every request, so a test may deactivate a key while the emulator runs.
 */
export function iamAuthenticator(
  headers: VendorHeaders,
  credentials: EmulatorCredentials,
): Authenticator {
  return (request) => {
    const timestamp = request.headers[headers.timestamp];
    const accessKey = request.headers[headers.accessKey];
    const signature = request.headers[headers.signature];
    if (!timestamp || !accessKey || !signature) return refuse(AUTH_DETAILS.missing);

    const timestampRefusal = checkTimestamp(timestamp, request.gatewayNow);
    if (timestampRefusal) return timestampRefusal;

    const key = secretKeyOf(credentials, accessKey);
    if ('refusal' in key) return key.refusal;

    const parts = { method: request.method, uri: request.target, timestamp, accessKey };
    if (!verifySignatureV2(parts, key.secretKey, signature)) {
      return refuse(AUTH_DETAILS.badSignature);
    }

    return checkApiKey(credentials, request.headers[headers.apiKey]);
  };
}
