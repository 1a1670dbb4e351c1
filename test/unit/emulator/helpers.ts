import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Emulator } from '../../../emulator/index.ts';

interface DemoSecret {
  iam: { accessKey: string; secretKey: string };
  apiKey: string;
}

const demoSecret = JSON.parse(
  readFileSync(new URL('../../../emulator/demo-secret.json', import.meta.url), 'utf8'),
) as DemoSecret;

/** The demo secret's keys, as a client of the demo gateway holds them. */
export const DEMO_ACCESS_KEY = demoSecret.iam.accessKey;
export const DEMO_SECRET_KEY = demoSecret.iam.secretKey;
export const DEMO_API_KEY = demoSecret.apiKey;

/**
 * The test's own signer (HMAC-SHA256 of method and URI, timestamp, access key), written here,
 * so the emulator's verifier is checked by it.
 */
export function sign(
  method: string,
  uri: string,
  timestamp: string,
  accessKey: string,
  secretKey: string,
): string {
  return createHmac('sha256', secretKey)
    .update(`${method} ${uri}\n${timestamp}\n${accessKey}`)
    .digest('base64');
}

export interface SignedCallOptions {
  body?: string | Buffer;
  contentType?: string;
  accept?: string;
  accessKey?: string;
  secretKey?: string;
  /** null: send no API key header. */
  apiKey?: string | null;
  /** Default: the real clock. */
  timestamp?: string;
  /** Replace the computed signature. */
  signature?: string;
  /** Header names to leave out (after the vendor prefix is applied). */
  omit?: readonly string[];
  extraHeaders?: Record<string, string>;
}

/** Headers for a signed call, with the emulator's vendor word. */
export function signedHeaders(
  emulator: Emulator,
  method: string,
  target: string,
  options: SignedCallOptions = {},
): Record<string, string> {
  const accessKey = options.accessKey ?? DEMO_ACCESS_KEY;
  const timestamp = options.timestamp ?? String(Date.now());
  const names = emulator.headers;
  const headers: Record<string, string> = {
    [names.timestamp]: timestamp,
    [names.accessKey]: accessKey,
    [names.signature]:
      options.signature ??
      sign(method, target, timestamp, accessKey, options.secretKey ?? DEMO_SECRET_KEY),
    ...options.extraHeaders,
  };
  const apiKey = options.apiKey === undefined ? DEMO_API_KEY : options.apiKey;
  if (apiKey !== null) headers[names.apiKey] = apiKey;
  if (options.contentType) headers['content-type'] = options.contentType;
  if (options.accept) headers['accept'] = options.accept;
  for (const name of options.omit ?? []) delete headers[name];
  return headers;
}

/** A signed call to `target` (path and query, sent as written). */
export function signedFetch(
  emulator: Emulator,
  method: string,
  target: string,
  options: SignedCallOptions = {},
): Promise<Response> {
  return fetch(`${emulator.url}${target}`, {
    method,
    headers: signedHeaders(emulator, method, target, options),
    body: options.body,
  });
}

export async function json(response: Response): Promise<unknown> {
  return JSON.parse(await response.text());
}

export const API_CALL_FAIL = { error: { errorCode: 901, message: 'API Call Fail' } };
export const REQUEST_SUCCESS = {
  returnCode: '0',
  returnDesc: 'Request Success',
  returnMessage: 'Success',
  resources: null,
};
