/**
 * One more attempt with fresh credentials when the platform's gateway refused the keys: what
 * every signed or keyed call shares, whatever it authenticates with (IAM signature v2 for scan
 * jobs, the application's client id and secret for the catalogue). The credentials come from a
 * CredentialSource: the upstream side knows nothing of where they are kept.
 */
import type { UpstreamAnswer } from '../client.js';
import { decodeUpstreamError } from '../error-decoding.js';

/** Where a kind of call gets its credentials (the secret store adapts to it: lib/secrets/). */
export interface CredentialSource<T> {
  get(): Promise<T>;
  /**
   * The credentials at hand when the source holds fresh ones, with no promise in between;
   * undefined when get() has to wait for them.
   */
  current?(): T | undefined;
  /** Fetches them again (rate-limited by the source); `previous` are the ones refused. */
  refresh(previous: T): Promise<T>;
}

/** 401 with the gateway's `200` (Authentication Failed): the keys themselves were refused. */
function isAuthFailure(answer: UpstreamAnswer): boolean {
  return answer.status === 401 && decodeUpstreamError(answer).code === '200';
}

interface RefreshingSend<T> {
  readonly credentials: CredentialSource<T>;
  readonly send: (credentials: T) => Promise<UpstreamAnswer>;
  /** A refusal worth one more try with the same credentials (a clock found to be off). */
  readonly retryWithSameCredentials?: (refusal: UpstreamAnswer) => boolean;
}

/**
 * Sends once; when the gateway refuses the keys, fetches the credentials again and, if they
 * changed (a rotation), sends once more with the new ones. A 401 is the gateway's refusal: the
 * endpoint never saw the call, so sending it again repeats nothing.
 */
export async function sendRefreshingCredentials<T>(
  call: RefreshingSend<T>,
): Promise<UpstreamAnswer> {
  const credentials = call.credentials.current?.() ?? (await call.credentials.get());
  let answer = await call.send(credentials);
  if (isAuthFailure(answer) && call.retryWithSameCredentials?.(answer)) {
    answer = await call.send(credentials);
  }
  if (!isAuthFailure(answer)) return answer;
  const fresh = await call.credentials.refresh(credentials);
  return sameCredentials(credentials, fresh) ? answer : call.send(fresh);
}

/** The same values in every member (credentials are flat records of strings). */
function sameCredentials<T>(a: T, b: T): boolean {
  if (a === b) return true;
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = new Set([...Object.keys(left), ...Object.keys(right)]);
  for (const key of keys) if (left[key] !== right[key]) return false;
  return true;
}
