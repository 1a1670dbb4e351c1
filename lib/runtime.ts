/**
 * What a platform-calling function shares across invocations of one container: the parsed
 * configuration, the secret store, one undici dispatcher and the gateway clients. Built once,
 * at cold start, so that a bad configuration fails the function's init with a clear message.
 */
import type { Dispatcher } from 'undici';
import { FunctionExecution } from './actions.js';
import { CatalogueClient } from './catalogue/client.js';
import { type Config, loadConfig } from './config.js';
import { SignedGateway } from './gateway.js';
import { ScanJobs } from './scanJobs.js';
import { createDispatcher, UpstreamClient } from './http/client.js';
import { type HttpFunctionDefinition, type HttpRequest, httpFunction } from './http/stack.js';
import type { HttpResult } from './http/responses.js';
import { createLogger, describeError, type Logger } from './log.js';
import { awsSecretSource, fileSecretSource, type SecretSource } from './secrets/sources.js';
import { SecretStore } from './secrets/store.js';

export interface Runtime {
  readonly config: Config;
  readonly log: Logger;
  readonly secrets: SecretStore;
  readonly http: UpstreamClient;
  /** The scan job API under SCAN_BASE_URL, signed. */
  readonly scanJobs: ScanJobs;
  /** Actions and triggers through their execution URLs (unsigned). */
  readonly functions: FunctionExecution;
  /** The open API catalogue under OPENAPI_BASE_URL (or OPENAPI_SERVICE_URLS), client id/secret. */
  readonly catalogue: CatalogueClient;
}

export interface RuntimeOverrides {
  readonly dispatcher?: Dispatcher;
  readonly secretSource?: SecretSource;
  readonly now?: () => number;
  readonly log?: Logger;
}

export function createRuntime(config: Config, overrides: RuntimeOverrides = {}): Runtime {
  const log = overrides.log ?? createLogger();
  const source =
    overrides.secretSource ??
    (config.secretsSource === 'aws'
      ? awsSecretSource({ secretId: config.secretId ?? '' })
      : fileSecretSource(config.secretsFile));
  const secrets = new SecretStore(source, {
    ttlMs: config.secretsTtlMs,
    now: overrides.now,
    onStale: (error) =>
      log.warn('secret refresh failed; using the cached secret', describeError(error)),
  });
  const http = new UpstreamClient({
    dispatcher: overrides.dispatcher ?? createDispatcher(),
    timeoutMs: config.upstreamTimeoutMs,
    now: overrides.now,
  });
  const scanGateway = new SignedGateway({
    baseUrl: config.scanBaseUrl,
    vendor: config.gatewayVendor,
    secrets,
    http,
    now: overrides.now,
  });
  const functions = new FunctionExecution({ secrets, http, vendor: config.gatewayVendor });
  const catalogue = new CatalogueClient({
    baseUrl: config.openapiBaseUrl,
    serviceUrls: config.openapiServiceUrls,
    vendor: config.gatewayVendor,
    secrets,
    http,
  });
  return { config, log, secrets, http, scanJobs: new ScanJobs(scanGateway), functions, catalogue };
}

let shared: Runtime | undefined;

/** The container's runtime, built from the environment on first use. */
export function getRuntime(): Runtime {
  if (!shared) {
    shared = createRuntime(loadConfig());
    // Secrets Manager is slow on a cold call: start now, during init, not on the first request.
    if (shared.config.secretsSource === 'aws') shared.secrets.prefetch();
  }
  return shared;
}

/** Test seam: replace (or forget) the container's runtime. */
export function setRuntime(runtime: Runtime | undefined): void {
  shared = runtime;
}

/**
 * An HTTP function that calls the platform: caller tokens come from the secret, and the
 * handler receives the runtime. The runtime is built when the module loads (cold start).
 */
export function platformFunction<
  B = undefined,
  Q = Record<string, never>,
  P = Record<string, never>,
>(
  definition: Omit<HttpFunctionDefinition<B, Q, P>, 'callerTokens' | 'log'>,
  handler: (request: HttpRequest<B, Q, P>, runtime: Runtime) => Promise<HttpResult>,
) {
  const runtime = getRuntime();
  return httpFunction<B, Q, P>(
    {
      ...definition,
      log: runtime.log.child({ function: definition.name }),
      callerTokens: async () => (await runtime.secrets.get()).callerTokens ?? [],
    },
    (request) => handler(request, runtime),
  );
}
