/**
 * One more attempt with fresh credentials when the platform's gateway refused the keys: what
 * every signed or keyed call shares, whatever it authenticates with (IAM signature v2 for scan
 * jobs, the application's client id and secret for the catalogue). The credentials come from a
 * CredentialSource: the upstream side knows nothing of where they are kept.
 *
 * A refusal that still stands after that is the operator's, never the caller's: the caller's
 * own identity never reaches the platform (this service authenticated it already), so a 401 to
 * a call made with the deployment's credentials can only mean that the secret holds credentials
 * the platform does not take. It is answered 500/`900` (CredentialsRefusedError) and counted in
 * the ConfigurationErrors metric, whose alarm tells the operator.
 */
import type { CallContext } from '../../core/call-context.ts';
import { configurationErrorMetric } from '../../core/configuration-metric.ts';
import { CredentialsRefusedError } from '../../core/errors.ts';
import { identifyAnswer } from '../answer-origin.ts';
import type { UpstreamAnswer } from '../client.ts';
import { decodeUpstreamError } from '../error-decoding.ts';

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

/**
 * The platform refused the credentials a call was made with: any 401 (the gateway's
 * Authentication Failed or Permission Denied, or an API's own), or a 403 the gateway gave
 * itself. An API's own 403 is its answer to the input (the static map answers invalid
 * parameters so) and stays the caller's.
 */
export function refusesCredentials(answer: UpstreamAnswer, vendor: string): boolean {
  if (answer.status === 401) return true;
  if (answer.status !== 403) return false;
  return identifyAnswer(answer.status, answer.headers, answer.body, vendor).origin !== 'endpoint';
}

/**
 * The operator's error for a refusal that stands: logged once on the call's log, naming the
 * credentials and the platform's status and code (never a value), with the ConfigurationErrors
 * metric (Cause `credentials`) on the same line.
 */
export function credentialsRefused(
  answer: UpstreamAnswer,
  credentials: string,
  call: CallContext,
): CredentialsRefusedError {
  const refusal = decodeUpstreamError(answer);
  call.log.error(
    'the platform refused the credentials of the secret: every call that uses them answers 500 until an operator corrects the secret',
    { credentials, upstreamStatus: refusal.status, upstreamErrorCode: refusal.code },
    configurationErrorMetric('credentials'),
  );
  return new CredentialsRefusedError(refusal, credentials);
}

interface RefreshingSend<T> {
  readonly credentials: CredentialSource<T>;
  readonly send: (credentials: T) => Promise<UpstreamAnswer>;
  /** A refusal worth one more try with the same credentials (a clock found to be off). */
  readonly retryWithSameCredentials?: (refusal: UpstreamAnswer) => boolean;
  /** The vendor word of the gateway's header names (who answered a 403). */
  readonly vendor: string;
  /** Which credentials, in words, for the operator: `the signing keys (iam, apiKey)`. */
  readonly what: string;
  /** The call's context: a refusal that stands is logged and counted on it. */
  readonly call: CallContext;
}

/**
 * Sends once; when the gateway refuses the keys, fetches the credentials again and, if they
 * changed (a rotation), sends once more with the new ones. A 401 is the gateway's refusal: the
 * endpoint never saw the call, so sending it again repeats nothing. A refusal that stands is
 * thrown as the operator's CredentialsRefusedError; any other answer is returned.
 */
export async function sendRefreshingCredentials<T>(
  call: RefreshingSend<T>,
): Promise<UpstreamAnswer> {
  const credentials = call.credentials.current?.() ?? (await call.credentials.get());
  let answer = await call.send(credentials);
  if (isAuthFailure(answer) && call.retryWithSameCredentials?.(answer)) {
    answer = await call.send(credentials);
  }
  if (isAuthFailure(answer)) {
    const fresh = await call.credentials.refresh(credentials);
    if (!sameCredentials(credentials, fresh)) answer = await call.send(fresh);
  }
  if (refusesCredentials(answer, call.vendor))
    throw credentialsRefused(answer, call.what, call.call);
  return answer;
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
