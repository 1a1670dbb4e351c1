/**
 * The demo actions and triggers the emulator serves, at the paths the bundled demo secret
 * (emulator/demo-secret.json) names. Each one exercises one behaviour of the platform.
 */
import type { ActionDefinition, ActionOutcome, JsonObject, TriggerDefinition } from './types.ts';

/** The gateway API (a random-looking id, as the gateway generates them) and its stage. */
export const DEMO_API_ID = 'fx7h2k';
export const DEMO_STAGE = 'demo';

/** How long `slow` sleeps unless its `ms` param says otherwise, and the most it accepts. */
const SLOW_DEFAULT_MS = 300;
const SLOW_MAX_MS = 10_000;

export const FAIL_ERROR = 'The fail action failed on purpose.';

/** What `echo` answers for `reply=binary`: every byte value once, to prove bytes pass intact. */
export const ECHO_BINARY_BODY: Buffer = Buffer.from(Array.from({ length: 256 }, (_, i) => i));

const success = (result: JsonObject): ActionOutcome => ({ kind: 'success', result });

/** `function main({name = 'World'}) { return {payload: `Hello, ${name}!`} }` */
async function hello(params: JsonObject): Promise<ActionOutcome> {
  const name = params['name'] === undefined ? 'World' : String(params['name']);
  return success({ payload: `Hello, ${name}!` });
}

async function fail(): Promise<ActionOutcome> {
  return { kind: 'application_error', result: { error: FAIL_ERROR } };
}

function sleepMs(params: JsonObject): number {
  const requested = Number(params['ms'] ?? SLOW_DEFAULT_MS);
  if (!Number.isFinite(requested)) return SLOW_DEFAULT_MS;
  return Math.min(Math.max(0, Math.round(requested)), SLOW_MAX_MS);
}

async function slow(params: JsonObject): Promise<ActionOutcome> {
  const ms = sleepMs(params);
  // Unref'd: a non-blocking activation still sleeping never keeps the process alive.
  await new Promise<void>((resolve) => setTimeout(resolve, ms).unref());
  return success({ payload: `Slept ${ms} ms.` });
}

/** The params the caller set, without the request's `__ow_*` context. */
function callerParams(params: JsonObject): JsonObject {
  return Object.fromEntries(Object.entries(params).filter(([key]) => !key.startsWith('__ow_')));
}

function echoStatus(params: JsonObject): number {
  const status = Number(params['status']);
  return Number.isInteger(status) && status >= 200 && status <= 599 ? status : 200;
}

/**
 * A web action that shows what it received. `reply` picks the answer: `json` (default) the
 * method, path, headers, params and body as JSON; `text` a text/plain line; `binary` the
 * bytes of ECHO_BINARY_BODY as application/octet-stream; `raw` the request's own body back
 * with its Content-Type (a text or binary body; JSON and forms are merged into params, so
 * they come back as the JSON echo). `status` sets the HTTP status, `retryAfter` a Retry-After
 * header (a busy action's answer).
 */
async function echo(params: JsonObject): Promise<ActionOutcome> {
  const statusCode = echoStatus(params);
  const retryAfter =
    params['retryAfter'] === undefined ? {} : { 'Retry-After': String(params['retryAfter']) };
  const method = String(params['__ow_method']);
  const path = String(params['__ow_path'] ?? '');
  const requestHeaders = (params['__ow_headers'] ?? {}) as Record<string, string>;
  switch (params['reply']) {
    case 'text':
      return success({
        statusCode,
        headers: { 'Content-Type': 'text/plain' },
        body: `echo ${method} ${path || '/'}`,
      });
    case 'binary':
      return success({
        statusCode,
        headers: { 'Content-Type': 'application/octet-stream' },
        body: ECHO_BINARY_BODY.toString('base64'),
      });
    case 'raw':
      if (typeof params['__ow_body'] === 'string') {
        return success({
          statusCode,
          headers: { 'Content-Type': requestHeaders['content-type'] ?? 'application/octet-stream' },
          body: params['__ow_body'],
        });
      }
      break;
  }
  return success({
    statusCode,
    headers: { 'Content-Type': 'application/json', 'X-Echo': 'true', ...retryAfter },
    body: {
      method,
      path,
      headers: requestHeaders,
      params: callerParams(params),
      body: params['__ow_body'] ?? null,
    },
  });
}

export function demoActions(): ActionDefinition[] {
  const action = (
    name: string,
    code: ActionDefinition['code'],
    flags: { web?: boolean; requiresApiKey?: boolean } = {},
  ): ActionDefinition => ({
    name,
    resource: name,
    web: flags.web ?? false,
    requiresApiKey: flags.requiresApiKey ?? false,
    code,
  });
  return [
    action('hello', hello),
    action('echo', echo, { web: true }),
    action('fail', fail),
    action('slow', slow),
    action('keyed', hello, { requiresApiKey: true }),
  ];
}

export function demoTriggers(): TriggerDefinition[] {
  return [
    {
      name: 'nightly',
      resource: 'nightly',
      requiresApiKey: false,
      rules: [{ name: 'nightly-hello', action: 'hello', active: true }],
    },
    { name: 'unused', resource: 'unused', requiresApiKey: false, rules: [] },
  ];
}
