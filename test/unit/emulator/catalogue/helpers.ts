import { readFileSync } from 'node:fs';
import type { Emulator } from '../../../../emulator/index.ts';

interface DemoSecret {
  openapi: { clientId: string; clientSecret: string };
}

const demoSecret = JSON.parse(
  readFileSync(new URL('../../../../emulator/demo-secret.json', import.meta.url), 'utf8'),
) as DemoSecret;

export const CLIENT_ID = demoSecret.openapi.clientId;
export const CLIENT_SECRET = demoSecret.openapi.clientSecret;

export interface CatalogueCallOptions {
  body?: string | Buffer;
  contentType?: string;
  accept?: string;
  /** null: send no credential headers. */
  clientId?: string | null;
  clientSecret?: string | null;
}

/** A catalogue call with the application's credentials, header names in capitals. */
export function catalogueFetch(
  emulator: Emulator,
  method: string,
  target: string,
  options: CatalogueCallOptions = {},
): Promise<Response> {
  const vendor = emulator.headers.apiKey.split('-')[1]?.toUpperCase() ?? '';
  const headers: Record<string, string> = {};
  const clientId = options.clientId === undefined ? CLIENT_ID : options.clientId;
  const clientSecret = options.clientSecret === undefined ? CLIENT_SECRET : options.clientSecret;
  if (clientId !== null) headers[`X-${vendor}-APIGW-API-KEY-ID`] = clientId;
  if (clientSecret !== null) headers[`X-${vendor}-APIGW-API-KEY`] = clientSecret;
  if (options.contentType) headers['content-type'] = options.contentType;
  if (options.accept) headers['accept'] = options.accept;
  return fetch(`${emulator.url}${target}`, { method, headers, body: options.body });
}

export const FORM = 'application/x-www-form-urlencoded';
export const JSON_TYPE = 'application/json';

export function form(fields: Record<string, string>): string {
  return new URLSearchParams(fields).toString();
}

export async function jsonOf(response: Response): Promise<unknown> {
  return JSON.parse(await response.text());
}

export async function bytesOf(response: Response): Promise<Buffer> {
  return Buffer.from(await response.arrayBuffer());
}
