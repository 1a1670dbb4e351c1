/**
 * What a platform-calling function shares across invocations of one container: the parsed
 * configuration, the secret stores (one per secret the function uses), one undici dispatcher
 * and one retry budget. Built once, at cold start, so that a bad configuration fails the
 * function's init with a clear message. Each area's client
 * (scan jobs, execution, the catalogue, ...) is derived from it where it is used, with
 * `perRuntime` (core/per-runtime.ts), so that a function bundles and builds only the area it
 * serves. The composition root: it imports core/, secrets/ and upstream/, and nothing above them.
 */
import type { Dispatcher } from 'undici';
import { type Config, loadConfig } from './core/config.ts';
import { configurationErrorMetric } from './core/configuration-metric.ts';
import { ConfigError, SecretReadError } from './core/errors.ts';
import { createLogger, describeError, type Logger } from './core/log.ts';
import {
  SECRET_CAPABILITIES,
  type SecretCapability,
  secretIdSetting,
} from './core/secret-capabilities.ts';
import { CREDENTIAL_REFUSALS, getSecretValueSource } from './secrets/get-secret-value.ts';
import { CAPABILITY_FIELDS, type PlatformSecret } from './secrets/schema.ts';
import {
  awsSecretSource,
  extensionOrSdkSource,
  extensionSecretSource,
  fallingBackToSdk,
  fileSecretSource,
  type SecretSource,
} from './secrets/sources.ts';
import { isMisconfiguration, SecretStore } from './secrets/store.ts';
import { createDispatcher } from './upstream/dispatch.ts';
import { RetryBudget } from './upstream/retry-budget.ts';

export interface Runtime {
  readonly config: Config;
  readonly log: Logger;
  /**
   * The store of the secret that holds a capability: SECRET_ID's (or the file's), or the
   * capability's own when deployed with one (SIGNING_SECRET_ID, ...). Capabilities kept in one
   * secret share one store and one fetch. Built on first use, so that a function reads only the
   * secrets of what it uses (its role may read no other).
   */
  secretsFor(capability: SecretCapability): SecretStore;
  /** Whether two capabilities are kept in one secret (the consumer's webhook check). */
  sameSecret(a: SecretCapability, b: SecretCapability): boolean;
  /** One undici dispatcher per container: every call goes through it, the secrets' reads too. */
  readonly dispatcher: Dispatcher;
  /** One retry budget per container, which every upstream call draws on. */
  readonly retryBudget: RetryBudget;
  /** For clients of the runtime: the same clock as the store's and the HTTP client's. */
  readonly now: () => number;
}

interface RuntimeOverrides {
  readonly dispatcher?: Dispatcher;
  readonly retryBudget?: RetryBudget;
  /** One source for every capability (a test's secret). */
  readonly secretSource?: SecretSource;
  /** Start fetching each secret as soon as its store is built (deployed: during init). */
  readonly prefetch?: boolean;
  readonly now?: () => number;
  readonly log?: Logger;
}

export function createRuntime(config: Config, overrides: RuntimeOverrides = {}): Runtime {
  const log = overrides.log ?? createLogger({}, undefined, config.logLevel);
  const dispatcher = overrides.dispatcher ?? createDispatcher();
  let warnedCallerTokens = false;
  const storeOf = (source: SecretSource, fields: SecretCapability[]) =>
    new SecretStore(source, {
      ttlMs: config.secretsTtlMs,
      now: overrides.now,
      // A secret of some capabilities only holds their fields; the single secret holds any.
      fields:
        fields.length === SECRET_CAPABILITIES.length
          ? undefined
          : fields.flatMap((capability) => CAPABILITY_FIELDS[capability]),
      deployed: config.deployed,
      // Every deployed stage, dev included; local runs take the demo secret the emulator needs.
      noDemoCredentials: config.deployed,
      onFailure: (error, failure) => {
        const fields = { ...describeError(error), retryInMs: failure.retryInMs };
        // Only an operator can mend it: the alarm's metric rides on the line that names the cause.
        const metric = isMisconfiguration(error)
          ? configurationErrorMetric('secret', (overrides.now ?? Date.now)())
          : undefined;
        if (failure.servingCached) {
          log.warn('secret fetch failed; the last good secret keeps serving', fields, metric);
        } else if (metric) {
          log.error(
            'the secret cannot be used (invalid, missing or not readable): every call that needs it answers 500 until an operator corrects it',
            fields,
            metric,
          );
        } else {
          log.error('secret fetch failed; no good secret yet', fields);
        }
      },
      // Once per container, when the first secret that still has them loads (at cold start).
      onLoad: (secret: PlatformSecret) => {
        if (!secret.callerTokens || warnedCallerTokens) return;
        warnedCallerTokens = true;
        log.warn(
          'callerTokens is deprecated: each of its tokens is a caller with scope *; move them to ' +
            'callers, each with an id and its own scopes',
          { callerTokens: secret.callerTokens.length },
        );
      },
    });
  const locationOf = (capability: SecretCapability): string => {
    if (overrides.secretSource || config.secretsSource === 'file') return '';
    const id = config.secretIds[capability] ?? config.secretId;
    if (!id) {
      throw new ConfigError(
        `Invalid configuration: SECRET_ID: required when SECRETS_SOURCE is aws (or ${secretIdSetting(capability)})`,
      );
    }
    return id;
  };
  /** Where a capability is kept, or undefined when it has no secret (a setting is missing). */
  const locationIfAny = (capability: SecretCapability) => {
    try {
      return locationOf(capability);
    } catch {
      return undefined;
    }
  };
  const stores = new Map<string, SecretStore>();
  const secretsFor = (capability: SecretCapability): SecretStore => {
    const location = locationOf(capability);
    let store = stores.get(location);
    if (!store) {
      const held = SECRET_CAPABILITIES.filter((other) => locationIfAny(other) === location);
      const source =
        overrides.secretSource ??
        (config.secretsSource === 'file'
          ? fileSecretSource(config.secretsFile)
          : awsSourceOf(config, location, log, dispatcher));
      store = storeOf(source, held);
      stores.set(location, store);
      if (overrides.prefetch) store.prefetch();
    }
    return store;
  };
  const sameSecret = (a: SecretCapability, b: SecretCapability) => {
    const where = locationIfAny(a);
    return where !== undefined && where === locationIfAny(b);
  };
  return {
    config,
    log,
    secretsFor,
    sameSecret,
    dispatcher,
    retryBudget: overrides.retryBudget ?? new RetryBudget(),
    now: overrides.now ?? (() => Date.now()),
  };
}

/**
 * Where a deployed secret comes from: one signed GetSecretValue request over the container's
 * dispatcher (the default), the secrets extension when its layer is attached, or the AWS SDK
 * when asked for, or when the function's credentials are not in its environment.
 */
function awsSourceOf(
  config: Config,
  secretId: string,
  log: Logger,
  dispatcher: Dispatcher,
): SecretSource {
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
    const config = loadConfig();
    // Secrets Manager is slow on a cold call: each secret a function uses is fetched as soon as
    // its client is built (during init), not on the first request.
    shared = createRuntime(config, { prefetch: config.secretsSource === 'aws' });
  }
  return shared;
}
