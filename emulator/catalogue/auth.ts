import type { GatewayRequest } from '../core/types.ts';
import type { EmulatorCredentials } from '../credentials.ts';
import { constantTimeEqual } from '../gateway/constant-time.ts';
import { gatewayError } from '../gateway/error-table.ts';
import { AUTH_DETAILS, type Authenticator } from '../gateway/iam-auth.ts';
import type { VendorHeaders } from '../gateway/vendor-headers.ts';

interface ClientCredentials {
  readonly clientId: string;
  readonly clientSecret: string;
}

/** A query parameter whose name matches `name` case-insensitively (header names are). */
function queryValue(query: URLSearchParams, name: string): string | undefined {
  for (const [key, value] of query) {
    if (key.toLowerCase() === name) return value;
  }
  return undefined;
}

function presented(
  request: GatewayRequest,
  headers: VendorHeaders,
  allowQuery: boolean,
): ClientCredentials | undefined {
  // Node lower-cases header names, so X-PLATFORM-APIGW-API-KEY-ID arrives as x-platform-...
  const fromHeaders = {
    clientId: request.headers[headers.apiKeyId],
    clientSecret: request.headers[headers.apiKey],
  };
  const fromQuery = allowQuery
    ? {
        clientId: queryValue(request.query, headers.apiKeyId),
        clientSecret: queryValue(request.query, headers.apiKey),
      }
    : {};
  const clientId = fromHeaders.clientId || fromQuery.clientId;
  const clientSecret = fromHeaders.clientSecret || fromQuery.clientSecret;
  return clientId && clientSecret ? { clientId, clientSecret } : undefined;
}

function isRegistered(credentials: EmulatorCredentials, client: ClientCredentials): boolean {
  // Every app is compared, so the time taken does not tell which client id exists.
  let found = false;
  for (const app of credentials.apps) {
    const idMatches = constantTimeEqual(app.clientId, client.clientId);
    const secretMatches = constantTimeEqual(app.clientSecret, client.clientSecret);
    if (idMatches && secretMatches) found = true;
  }
  return found;
}

export interface CatalogueAuthOptions {
  /**
   * Static maps and CAPTCHA images also take the credentials as query parameters, so a page can
   * use the URL in an <img>.
   */
  readonly allowQueryCredentials?: boolean;
}

/**
 * Client ID / Client Secret authentication of the open API catalogue. `credentials.apps` is read
 * on every request, so a test may change it live.
 */
export function catalogueAuthenticator(
  headers: VendorHeaders,
  credentials: EmulatorCredentials,
  options: CatalogueAuthOptions = {},
): Authenticator {
  return (request) => {
    const client = presented(request, headers, options.allowQueryCredentials ?? false);
    if (!client) return gatewayError('200', AUTH_DETAILS.missing);
    if (!isRegistered(credentials, client)) return gatewayError('200', AUTH_DETAILS.badSignature);
    return undefined;
  };
}
