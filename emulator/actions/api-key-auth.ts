import type { EmulatorCredentials } from '../credentials.ts';
import { constantTimeEqual } from '../gateway/constant-time.ts';
import { gatewayError } from '../gateway/error-table.ts';
import { AUTH_DETAILS, type Authenticator } from '../gateway/iam-auth.ts';

/** A function execution URL needs no authentication by default. */
export const openAccess: Authenticator = () => undefined;

/**
 * A resource that requires an API key: x-<vendor>-apigw-api-key
 * must be an active primary or secondary key. `credentials` is read on every request, so a
 * test may deactivate a key while the emulator runs.
 */
export function apiKeyAuthenticator(
  apiKeyHeader: string,
  credentials: EmulatorCredentials,
): Authenticator {
  return (request) => {
    const apiKey = request.headers[apiKeyHeader];
    if (apiKey === undefined || apiKey === '') {
      return gatewayError('200', AUTH_DETAILS.missingApiKey);
    }
    const known = credentials.apiKeys.find((candidate) => constantTimeEqual(candidate.key, apiKey));
    if (!known) return gatewayError('200', AUTH_DETAILS.unknownApiKey);
    if (!known.active) return gatewayError('200', AUTH_DETAILS.inactiveApiKey);
    return undefined;
  };
}
