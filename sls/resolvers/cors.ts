// CORS as a stage configures it: the HTTP API's CORS configuration (provider.httpApi.cors),
// from the stage parameter corsAllowedOrigins, a comma-separated list of origins
// (`https://app.example.com,https://admin.example.com`, or `*`). Empty, the default: no CORS
// configuration at all, so no answer carries a CORS header and a preflight reaches the routes
// like any OPTIONS request (a 405 with Allow, or a web action). Deployed, API Gateway applies
// it; locally, sls/plugins/offline-cors.ts applies the same configuration the same way.
import type { CorsConfig, ResolverArgs } from '../serverless.ts';

/** What a browser may send and read: the bearer token, JSON, content negotiation. */
const ALLOWED_HEADERS = ['Authorization', 'Content-Type', 'Accept'];
const ALLOWED_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];
/** Response headers a page may read besides the CORS-safelisted ones. */
const EXPOSED_HEADERS = [
  'Allow',
  'Retry-After',
  'RateLimit',
  'RateLimit-Policy',
  'X-Openwhisk-Activation-Id',
];
/** How long a browser may reuse a preflight's answer, in seconds. */
const MAX_AGE_SECONDS = 600;

/** An origin as a browser sends it: scheme, host, optional port; no path. */
const ORIGIN = /^https?:\/\/[A-Za-z0-9.-]+(:\d{1,5})?$/;

/** The origins of the parameter's text, trimmed; [] when empty. */
export function originsOf(text: unknown): string[] {
  return String(text ?? '')
    .split(',')
    .map((origin) => origin.trim())
    .filter((origin) => origin !== '');
}

/** What is wrong with the parameter, one message per origin that is not one. */
export function problemsOf(text: unknown): string[] {
  const origins = originsOf(text);
  const found: string[] = [];
  for (const origin of origins) {
    if (origin === '*') {
      if (origins.length > 1) found.push('corsAllowedOrigins: "*" stands alone (any origin).');
    } else if (!ORIGIN.test(origin)) {
      found.push(
        `corsAllowedOrigins: each origin is scheme://host[:port] with no path or trailing slash, such as https://app.example.com (got ${origin.length > 60 ? 'a long value' : JSON.stringify(origin)}).`,
      );
    }
  }
  return found;
}

/** provider.httpApi.cors for the parameter's text: false (no CORS) or the configuration. */
export function corsConfigOf(text: unknown): false | CorsConfig {
  const origins = originsOf(text);
  if (origins.length === 0) return false;
  return {
    allowedOrigins: origins,
    allowedHeaders: ALLOWED_HEADERS,
    allowedMethods: ALLOWED_METHODS,
    exposedResponseHeaders: EXPOSED_HEADERS,
    // Bearer tokens, no cookies: a page never needs the browser's credentials sent along.
    allowCredentials: false,
    maxAge: MAX_AGE_SECONDS,
  };
}

/** `${file(./sls/variables.cjs):cors.cors}` */
export const cors = async ({ resolveVariable }: ResolverArgs): Promise<false | CorsConfig> =>
  corsConfigOf(await resolveVariable('param:corsAllowedOrigins'));
