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
import { SecretReadError } from './core/errors.js';
import { createLogger, describeError, type Logger } from './core/log.js';
import { CREDENTIAL_REFUSALS, getSecretValueSource } from './secrets/get-secret-value.js';
import {
  awsSecretSource,
  extensionOrSdkSource,
  extensionSecretSource,
  fallingBackToSdk,
  fileSecretSource,
  type SecretSource,
} from './secrets/sources.js';
import { SecretStore } from './secrets/store.js';
import { createDispatcher } from './upstream/dispatch.js';
import { RetryBudget } from './upstream/retry-budget.js';

export interface Runtime {
  readonly config: Config;
  readonly log: Logger;
  readonly secrets: SecretStore;
  /** One undici dispatcher per container: every call goes through it, the secret's read too. */
  readonly dispatcher: Dispatcher;
  /** One retry budget per container, which every upstream call draws on. */
  readonly retryBudget: RetryBudget;
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
  const dispatcher = overrides.dispatcher ?? createDispatcher();
  const source = overrides.secretSource ?? secretSourceOf(config, log, dispatcher);
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
  });
  return {
    config,
    log,
    secrets,
    dispatcher,
    retryBudget: overrides.retryBudget ?? new RetryBudget(),
    now: overrides.now ?? (() => Date.now()),
  };
}

/**
 * Where the secret comes from: a file locally; deployed, one signed GetSecretValue request over
 * the container's dispatcher (the default), the secrets extension when its layer is attached,
 * or the AWS SDK when asked for, or when the function's credentials are not in its environment.
 */
function secretSourceOf(config: Config, log: Logger, dispatcher: Dispatcher): SecretSource {
  if (config.secretsSource === 'file') return fileSecretSource(config.secretsFile);
  const secretId = config.secretId ?? '';
  const sdk = awsSecretSource({ secretId });
  const fallback = (reason: string) => log.warn('reading the secret with the SDK', { reason });
  if (config.secretsReader === 'extension' && config.secretsExtension) {
    return extensionOrSdkSource(
      extensionSecretSource({ secretId, ...config.secretsExtension, dispatcher }),
      sdk,
      fallback,
    );
  }
  const { credentials, region, secretsManagerEndpoint: endpoint } = config.aws;
  if (config.secretsReader === 'sdk' || !credentials || !region || !endpoint) return sdk;
  return fallingBackToSdk(
    getSecretValueSource({ secretId, endpoint, region, credentials, dispatcher }),
    sdk,
    (error) => error instanceof SecretReadError && CREDENTIAL_REFUSALS.has(error.type),
    fallback,
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
