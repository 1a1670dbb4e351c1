import type { Emulator } from '../../../../emulator/index.ts';

/** The demo API and stage of the emulator's function execution URLs. */
const API_PATH = '/fx7h2k/demo';
export const DEMO_GATEWAY_API_KEY = 'demo-gateway-api-key';

export interface CallOptions {
  method?: string;
  query?: string;
  /** An object is sent as JSON with Content-Type application/json. */
  body?: unknown;
  headers?: Record<string, string>;
}

/** A call to `/fx7h2k/demo/<resource><query>`, as a client of the gateway makes it. */
export function call(
  emulator: Emulator,
  resource: string,
  options: CallOptions = {},
): Promise<Response> {
  const headers = { ...options.headers };
  let body: string | Buffer | undefined;
  if (Buffer.isBuffer(options.body) || typeof options.body === 'string') {
    body = options.body;
  } else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  return fetch(`${emulator.url}${API_PATH}/${resource}${options.query ?? ''}`, {
    method: options.method ?? 'POST',
    headers,
    body,
  });
}

export async function jsonOf(response: Response): Promise<Record<string, unknown>> {
  return JSON.parse(await response.text()) as Record<string, unknown>;
}
