/**
 * The secret read from Secrets Manager with one GetSecretValue request, signed (AWS Signature
 * Version 4, sign-v4.ts) with the function's own credentials from its environment,
 * and sent through the container's undici dispatcher: no SDK to load at cold start, no layer to
 * attach. It speaks the API's own protocol (AWS JSON 1.1):
 *
 *   POST /  X-Amz-Target: secretsmanager.GetSecretValue  {"SecretId": "<id>"}
 *   200     {"SecretString": "...", ...} or {"SecretBinary": "<base64>", ...}
 *   4xx/5xx {"__type": "<exception>", "message": "..."}
 *
 * https://docs.aws.amazon.com/secretsmanager/latest/apireference/API_GetSecretValue.html
 */
import { SecretReadError } from '../core/errors.ts';
import { jsonObjectOf } from '../core/json.ts';
import { Deadline, dispatchOnce } from '../upstream/dispatch.ts';
import type { Dispatcher } from '../upstream/undici.ts';
import { type SigningCredentials, signV4 } from './sign-v4.ts';
import type { SecretSource } from './sources.ts';

interface GetSecretValueSourceOptions {
  readonly secretId: string;
  /** Where Secrets Manager answers (its regional endpoint, or AWS_ENDPOINT_URL_*). */
  readonly endpoint: URL;
  readonly region: string;
  readonly credentials: SigningCredentials;
  readonly dispatcher: Dispatcher;
  /** Milliseconds one read may take, attempts included (the SDK's request timeout was 3 s). */
  readonly timeoutMs?: number;
}

/** A secret value is at most 64 KB; its answer, escaped or in base64, stays under this. */
const MAX_ANSWER_BYTES = 1024 * 1024;
/** Tries of a read that met a transient failure (as the SDK's standard mode: 3). */
const MAX_ATTEMPTS = 3;
/** Answers that another attempt may change: throttling and the service's own failures. */
const TRANSIENT = new Set(['ThrottlingException', 'InternalServiceError', 'RequestTimeout']);
/**
 * Refusals of the credentials themselves: the SDK, with its whole credential chain, may do
 * better (setup.ts falls back to it).
 */
export const CREDENTIAL_REFUSALS = new Set([
  'UnrecognizedClientException',
  'InvalidSignatureException',
  'IncompleteSignature',
  'MissingAuthenticationToken',
  'ExpiredTokenException',
]);

export function getSecretValueSource(options: GetSecretValueSourceOptions): SecretSource {
  const body = JSON.stringify({ SecretId: options.secretId });
  return {
    description: `Secrets Manager ${options.secretId}`,
    async fetchText() {
      const deadline = new Deadline(options.timeoutMs ?? 3000);
      try {
        for (let attempt = 1; ; attempt++) {
          const outcome = await readOnce(options, body, deadline).catch((error: unknown) => {
            if (deadline.expired || attempt >= MAX_ATTEMPTS) throw error;
            return undefined;
          });
          if (typeof outcome === 'string') return outcome;
          if (outcome && (!TRANSIENT.has(outcome.type) || attempt >= MAX_ATTEMPTS)) {
            throw new SecretReadError(
              `Secrets Manager answered ${outcome.status} ${outcome.type}`,
              outcome.type,
            );
          }
          await deadline.sleep(50 * 2 ** (attempt - 1));
        }
      } finally {
        deadline.clear();
      }
    },
  };
}

/** The secret's text, or the service's refusal. Throws on a transport failure. */
async function readOnce(
  options: GetSecretValueSourceOptions,
  body: string,
  deadline: Deadline,
): Promise<string | { status: number; type: string }> {
  const { endpoint } = options;
  const headers = signV4(
    {
      method: 'POST',
      host: endpoint.host,
      path: endpoint.pathname,
      service: 'secretsmanager',
      region: options.region,
      body,
      headers: {
        'content-type': 'application/x-amz-json-1.1',
        'x-amz-target': 'secretsmanager.GetSecretValue',
      },
    },
    options.credentials,
  );
  const answer = await dispatchOnce(
    options.dispatcher,
    {
      origin: endpoint.origin,
      path: endpoint.pathname,
      method: 'POST',
      headers,
      body,
      headersTimeout: options.timeoutMs ?? 3000,
      bodyTimeout: options.timeoutMs ?? 3000,
    },
    { maxBodyBytes: MAX_ANSWER_BYTES, deadline },
  );
  const parsed = jsonObjectOf(answer.body.toString('utf8'));
  if (answer.status !== 200) {
    // `__type` may carry a namespace: `com.amazonaws.secretsmanager#ResourceNotFoundException`.
    const type = typeof parsed?.__type === 'string' ? parsed.__type.split('#').pop() : undefined;
    return { status: answer.status, type: type || 'UnknownError' };
  }
  if (typeof parsed?.SecretString === 'string') return parsed.SecretString;
  if (typeof parsed?.SecretBinary === 'string') {
    return Buffer.from(parsed.SecretBinary, 'base64').toString('utf8');
  }
  throw new SecretReadError('The secret has neither SecretString nor SecretBinary', 'NoValue');
}
