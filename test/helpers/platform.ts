/**
 * Integration fixtures: the environment that points the functions at an emulator, secret
 * files, and the real handler modules loaded fresh with an environment, as a new Lambda
 * container would load them. The emulator itself: emulator.ts.
 */
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { vi } from 'vitest';
import type { Emulator } from '../../emulator/index.ts';
import type { PlatformSecret } from '../../lib/secrets/schema.ts';
import type { HttpHandler } from './lambda.ts';
import { checkAnswerAgainstDocument } from './openapi-answers.ts';

export const DEMO_SECRET_FILE = path.resolve(
  import.meta.dirname,
  '../../emulator/demo-secret.json',
);
export const DEMO_TOKEN = 'demo-caller-token-for-local-use-only';

export async function demoSecret(): Promise<PlatformSecret> {
  return JSON.parse(await readFile(DEMO_SECRET_FILE, 'utf8')) as PlatformSecret;
}

/** Writes a secret document to a fresh temporary file and returns its path. */
export async function secretFile(secret: unknown): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'platform-secret-'));
  const file = path.join(dir, 'secret.json');
  await writeFile(file, JSON.stringify(secret));
  return file;
}

/** The environment that points the functions at an emulator. */
export function emulatorEnv(
  emulator: Emulator,
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    SCAN_BASE_URL: emulator.url,
    OPENAPI_BASE_URL: emulator.url,
    SECRETS_SOURCE: 'file',
    SECRETS_FILE: DEMO_SECRET_FILE,
    GATEWAY_VENDOR: 'platform',
    UPSTREAM_TIMEOUT_MS: '5000',
    ...extra,
  };
}

/** The variables the functions read (lib/core/config.ts): only the given ones are set. */
const FUNCTION_VARIABLES = [
  'SCAN_BASE_URL',
  'OPENAPI_BASE_URL',
  'OPENAPI_SERVICE_URLS',
  'GATEWAY_VENDOR',
  'SECRETS_SOURCE',
  'SECRETS_FILE',
  'SECRET_ID',
  'SECRETS_TTL_SECONDS',
  'UPSTREAM_TIMEOUT_MS',
  'WEBHOOK_MAX_BODY_BYTES',
  'EMULATOR_PORT',
  'BULK_PAGE_SIZE',
  'BULK_PAGE_CONCURRENCY',
  'BULK_CANCEL_CONCURRENCY',
  'SIGNING_SECRET_ID',
  'CATALOGUE_SECRET_ID',
  'EXECUTION_SECRET_ID',
  'WEBHOOKS_SECRET_ID',
  'CALLERS_SECRET_ID',
  'CALLERS_MAX_STALE_SECONDS',
  'JWT_ISSUER_URL',
  'JWT_ALLOW_STAR_SCOPE',
  'PUBLIC_REFERENCE',
  'HAND_OFF_BUCKET',
  'HAND_OFF_MAX_MB',
  'AWS_ENDPOINT_URL_S3',
];

/**
 * Imports handler modules in a fresh module graph with exactly this environment (for the
 * variables the functions read), so that each gets a new runtime, as on a cold start.
 */
export async function loadHandlers<const T extends Record<string, string>>(
  env: Record<string, string>,
  modules: T,
): Promise<{ [K in keyof T]: HttpHandler }> {
  vi.resetModules();
  for (const name of FUNCTION_VARIABLES) delete process.env[name];
  Object.assign(process.env, env);
  const loaded: Record<string, HttpHandler> = {};
  for (const [key, modulePath] of Object.entries(modules)) {
    const module = (await import(path.resolve(import.meta.dirname, '../..', modulePath))) as {
      handler: HttpHandler;
    };
    loaded[key] = answersCheckedAgainstDocument(module.handler);
  }
  return loaded as { [K in keyof T]: HttpHandler };
}

/** The handler, with each HTTP answer it gives checked against the OpenAPI document. */
function answersCheckedAgainstDocument(handler: HttpHandler): HttpHandler {
  return async (event, context) => {
    const result = await handler(event, context);
    const http = event?.requestContext?.http;
    if (!http || typeof result?.statusCode !== 'number') return result;
    const headers = Object.fromEntries(
      Object.entries(result.headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]),
    );
    await checkAnswerAgainstDocument({
      method: http.method,
      path: event.rawPath,
      status: result.statusCode,
      contentType:
        headers['content-type'] === undefined ? undefined : String(headers['content-type']),
      body: result.isBase64Encoded
        ? Buffer.from(result.body ?? '', 'base64').toString('latin1')
        : (result.body ?? ''),
    });
    return result;
  };
}

export const SCAN_FUNCTIONS = {
  list: 'functions/jobs/list.ts',
  search: 'functions/jobs/search.ts',
  cancel: 'functions/jobs/cancel.ts',
  stop: 'functions/jobs/stop.ts',
  report: 'functions/jobs/report.ts',
  cancelReserved: 'functions/jobs/cancel-reserved.ts',
} as const;
