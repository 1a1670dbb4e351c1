/**
 * What every caller of the platform's gateway shares, whatever it signs with (IAM signature v2
 * for scan jobs, the application's client id and secret for the catalogue): the URL under a base
 * URL, and one more attempt with fresh credentials when the gateway refused the keys.
 */
import type { PlatformSecret } from '../../secrets/schema.js';
import type { UpstreamResponse } from '../client.js';
import { decodeUpstreamError } from '../error-decoding.js';

/** Name/value pairs in the order they are sent. */
export type Pairs = ReadonlyArray<readonly [string, string]>;

/**
 * application/x-www-form-urlencoded, UTF-8: what URLSearchParams writes (space as `+`,
 * everything else outside the unreserved set percent-encoded from its UTF-8 bytes).
 */
export function encodePairs(pairs: Pairs): string {
  return new URLSearchParams(pairs.map(([k, v]): [string, string] => [k, v])).toString();
}

/** The URL of an upstream path under a base URL, whose own path prefix is kept. */
export function upstreamUrl(base: URL, path: string, query: Pairs = []): URL {
  const url = new URL(base.origin);
  url.pathname = base.pathname.replace(/\/+$/, '') + path;
  if (query.length > 0) url.search = encodePairs(query);
  return url;
}

/** 401 with the gateway's `200` (Authentication Failed): the keys themselves were refused. */
function isAuthFailure(response: UpstreamResponse): boolean {
  return response.status === 401 && decodeUpstreamError(response).code === '200';
}

interface CredentialSource {
  get(): Promise<PlatformSecret>;
  /** Fetches the secret again (rate-limited by the store); `previous` is the one refused. */
  refresh(previous: PlatformSecret): Promise<PlatformSecret>;
}

interface RefreshingSend {
  readonly secrets: CredentialSource;
  /** The credentials this kind of call signs with: a change means a retry may succeed. */
  readonly credentialsOf: (secret: PlatformSecret) => readonly (string | undefined)[];
  readonly send: (secret: PlatformSecret) => Promise<UpstreamResponse>;
  /** A refusal worth one more try with the same secret (a clock found to be off). */
  readonly retryWithSameSecret?: (refusal: UpstreamResponse) => boolean;
}

/**
 * Sends once; when the gateway refuses the keys, fetches the secret again and, if the keys
 * changed (a rotation), sends once more with the new ones. A 401 is the gateway's refusal: the
 * endpoint never saw the call, so sending it again repeats nothing.
 */
export async function sendRefreshingCredentials(call: RefreshingSend): Promise<UpstreamResponse> {
  const secret = await call.secrets.get();
  let response = await call.send(secret);
  if (isAuthFailure(response) && call.retryWithSameSecret?.(response)) {
    response = await call.send(secret);
  }
  if (!isAuthFailure(response)) return response;
  const fresh = await call.secrets.refresh(secret);
  const before = call.credentialsOf(secret);
  const after = call.credentialsOf(fresh);
  const changed = before.some((value, i) => value !== after[i]);
  return changed ? call.send(fresh) : response;
}
