/**
 * What a platform-calling function shares across invocations of one container: the parsed
 * configuration, the secret store, one undici dispatcher and one retry budget. Built once, at cold start, so
 * that a bad configuration fails the function's init with a clear message. Each area's client
 * (scan jobs, execution, the catalogue, ...) is derived from it where it is used, with
 * `perRuntime` (core/per-runtime.ts), so that a function bundles and builds only the area it
 * serves. The composition root: it imports core/, secrets/ and upstream/, and nothing above them.
 */
import type { Dispatcher } from 'undici';
import { type Config, loadConfig } from './core/config.js';
import { createLogger, describeError, type Logger } from './core/log.js';
import {
  awsSecretSource,
  extensionOrSdkSource,
  extensionSecretSource,
  fileSecretSource,
  type SecretSource,
} from './secrets/sources.js';
import { SecretStore } from './secrets/store.js';
import { UpstreamClient } from './upstream/client.js';
import { createDispatcher } from './upstream/dispatch.js';
import { RetryBudget } from './upstream/retry-budget.js';

export interface Runtime {
  readonly config: Config;
  readonly log: Logger;
  readonly secrets: SecretStore;
  readonly http: UpstreamClient;
  /** For clients of the runtime: the same clock as the store's and the HTTP client's. */
  readonly now: () => number;
}

interface RuntimeOverrides {
  readonly dispatcher?: Dispatcher;
  readonly retryBudget?: RetryBudget;
  readonly secretSource?: SecretSource;
  readonly now?: () => number;
  readonly log?: Logger;
}

export function createRuntime(config: Config, overrides: RuntimeOverrides = {}): Runtime {
  const log = overrides.log ?? createLogger({}, undefined, config.logLevel);
  const source = overrides.secretSource ?? secretSourceOf(config, log);
  let warnedCallerTokens = false;
  const secrets = new SecretStore(source, {
    ttlMs: config.secretsTtlMs,
    now: overrides.now,
    onFailure: (error, failure) =>
      failure.servingCached
        ? log.warn('secret fetch failed; the last good secret keeps serving', {
            ...describeError(error),
            retryInMs: failure.retryInMs,
          })
        : log.error('secret fetch failed; no good secret yet', {
            ...describeError(error),
            retryInMs: failure.retryInMs,
          }),
    // Once per container, when the first secret that still has them loads (at cold start).
    onLoad: (secret) => {
      if (!secret.callerTokens || warnedCallerTokens) return;
      warnedCallerTokens = true;
      log.warn(
        'callerTokens is deprecated: each of its tokens is a caller with scope *; move them to ' +
          'callers, each with an id and its own scopes',
        { callerTokens: secret.callerTokens.length },
      );
    },
  });
  const http = new UpstreamClient({
    dispatcher: overrides.dispatcher ?? createDispatcher(),
    timeoutMs: config.upstreamTimeoutMs,
    retryBudget: overrides.retryBudget ?? new RetryBudget(),
    vendor: config.gatewayVendor,
    now: overrides.now,
  });
  return { config, log, secrets, http, now: overrides.now ?? (() => Date.now()) };
}

function secretSourceOf(config: Config, log: Logger): SecretSource {
  if (config.secretsSource === 'file') return fileSecretSource(config.secretsFile);
  const secretId = config.secretId ?? '';
  const sdk = awsSecretSource({ secretId });
  if (!config.secretsExtension) return sdk;
  return extensionOrSdkSource(
    extensionSecretSource({ secretId, ...config.secretsExtension }),
    sdk,
    (reason) => log.warn('secrets extension unreachable; reading with the SDK', { reason }),
  );
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
