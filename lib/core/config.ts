/**
 * The one place that reads the environment. Parsed once, with zod;
 * an invalid value fails at cold start with a message that names the variable, never its value.
 */
import path from 'node:path';
import { isSecureUrl } from './deployed-settings.ts';
import {
  type AwsEnvironment,
  awsEnvironmentOf,
  environmentSchema,
  logLevelSchema,
  publicReferenceSchema,
} from './environment.ts';
import { ConfigError } from './errors.ts';
import type { LogLevel } from './log.ts';
import {
  SECRET_CAPABILITIES,
  type SecretCapability,
  secretIdSetting,
} from './secret-capabilities.ts';

export interface Config {
  /** True inside a real Lambda container (not serverless offline, not invoke local). */
  readonly deployed: boolean;
  readonly emulatorPort: number;
  /**
   * `{base_url}` of the scan job API, without `/api/v1`. Locally it defaults to the emulator;
   * deployed it has no default (see requiredSetting).
   */
  readonly scanBaseUrl: URL | undefined;
  /** `{openapi_url}` of the open API catalogue. */
  readonly openapiBaseUrl: URL | undefined;
  /** Catalogue service (first path segment) to the base URL that serves it. */
  readonly openapiServiceUrls: ReadonlyMap<string, URL>;
  /** The vendor word in gateway header names, lower case. */
  readonly gatewayVendor: string;
  readonly secretsSource: 'file' | 'aws';
  readonly secretsFile: string;
  readonly secretId: string | undefined;
  /** A capability's own secret (its <CAPABILITY>_SECRET_ID); unset: it is in SECRET_ID's. */
  readonly secretIds: Readonly<Record<SecretCapability, string | undefined>>;
  /**
   * Deployed with a JWT issuer (JWT_ISSUER_URL): API Gateway's JWT authorizer checks callers,
   * and the functions read the caller from its claims; unset, callers are the secret's.
   */
  readonly jwtIssuer: string | undefined;
  /**
   * Whether a JWT's `*` scope counts (JWT_ALLOW_STAR_SCOPE=true). By default it does not: an
   * identity provider that can issue `*` could otherwise grant everything with one scope, and
   * the routes' authorizer does not accept it either (sls/resolvers/routes.ts).
   */
  readonly jwtAllowStarScope: boolean;
  /**
   * The local port of the AWS Parameters and Secrets Lambda Extension, when its layer is
   * attached: the secret is read from it (no SDK) with the function's session token.
   */
  readonly secretsExtension: { readonly port: number; readonly token: string } | undefined;
  /**
   * How a deployed function reads its secret: `signed` (one GetSecretValue request, signed with
   * the function's own credentials, over the container's undici dispatcher; the default),
   * `extension` (the Parameters and Secrets Lambda Extension; the default when its layer is
   * attached) or `sdk` (the AWS SDK, which the runtime provides).
   */
  readonly secretsReader: 'signed' | 'extension' | 'sdk';
  /** What Lambda's environment says of AWS: the region, the credentials, the endpoint. */
  readonly aws: AwsEnvironment;
  readonly secretsTtlMs: number;
  /**
   * How long past its TTL a secret that cannot be refreshed may still say who the callers are:
   * older than secretsTtlMs + this, callers are refused (503) rather than checked against a list
   * that may still hold a revoked token. The platform credentials keep serving regardless.
   */
  readonly callersMaxStaleMs: number;
  readonly upstreamTimeoutMs: number;
  /**
   * The largest webhook delivery the receiver verifies (WEBHOOK_MAX_BODY_BYTES): a larger one is
   * refused with 413/`430` before its signature is computed.
   */
  readonly webhookMaxBodyBytes: number;
  /** Bulk calls: the walks of every page of a list or search, and cancel-reserved's cancels. */
  readonly bulk: BulkSettings;
  /** DynamoDB table of the scan job watcher's last view; when set, the watcher keeps it there. */
  readonly watcherStateTable: string | undefined;
  /**
   * JSON file of the watcher's last view when no table is set. Undefined when deployed: a
   * Lambda's disk does not outlive its container, so a deployed watcher needs the table.
   */
  readonly watcherStateFile: string | undefined;
  /** EventBridge bus the watcher publishes to; unset: it only logs each change. */
  readonly eventBusName: string | undefined;
  /** SQS FIFO queue of invocations; unset = run them in process (local only). */
  readonly invocationQueueUrl: string | undefined;
  /** Its dead-letter queue, where the consumer parks what it must not run again on its own. */
  readonly invocationDeadLetterQueueUrl: string | undefined;
  /** S3 bucket of delivery bodies too large for a queue message (the claim check). */
  readonly deliveryBodyBucket: string | undefined;
  /** DynamoDB table of queued invocations and their outcomes; unset = this process's memory. */
  readonly deliveryLedgerTable: string | undefined;
  /**
   * DynamoDB table of the callers' and the account's usage (plans, lib/usage/); unset = this
   * process's memory (local runs only: required when deployed by the functions that admit).
   */
  readonly usageTable: string | undefined;
  /**
   * When the usage table cannot answer: `open` admits the request uncounted (a metric and a
   * warning), `closed` refuses it with 503.
   */
  readonly usageStoreFailure: 'open' | 'closed';
  /**
   * The S3 bucket answers too large for a Lambda response are handed off through
   * (HAND_OFF_BUCKET): required when deployed by the functions that hand off; unset locally,
   * such an answer is refused (502/`520`).
   */
  readonly handOffBucket: string | undefined;
  /** The largest answer handed off (HAND_OFF_MAX_MB, 100 MB by default). */
  readonly handOffMaxBytes: number;
  /** How long a delivery's key is remembered after its last copy can arrive. */
  readonly deliveryMemoryMs: number;
  /** Receives of a queued invocation before SQS itself moves it to the dead-letter queue. */
  readonly invocationMaxReceives: number;
  /** Tries of an invocation that did not reach its action before the consumer parks it. */
  readonly invocationMaxAttempts: number;
  /** The wait before the second try, doubling for each later one. */
  readonly invocationRetrySeconds: number;
  readonly logLevel: LogLevel;
}

/** How the walks over many jobs call the platform (docs/retries.md, "Bulk calls"). */
export interface BulkSettings {
  /** Page size a walk asks for first; the platform's default of 20 when it refuses it. */
  readonly pageSize: number;
  /** Pages of a list or search read at once, once the first page has given the count. */
  readonly pageConcurrency: number;
  /** Cancels in flight at once. */
  readonly cancelConcurrency: number;
}

const DEFAULT_EMULATOR_PORT = 4010;
/**
 * 1 MiB: the size of the largest SQS message, four times what a queued message carries inline
 * (larger params take the body bucket), and about a millisecond of HMAC-SHA256 per secret. A
 * sender of larger deliveries is served by raising it, up to the 6 MB Lambda carries.
 */
const DEFAULT_WEBHOOK_MAX_BODY_BYTES = 1024 * 1024;
/** The hand-off's ceiling: an answer over 100 MB is refused rather than stored. */
const DEFAULT_HAND_OFF_MAX_MB = 100;
/** A stale secret may say who the callers are for 5 minutes past its TTL (10 in all). */
const DEFAULT_CALLERS_MAX_STALE_SECONDS = 300;
const DEFAULT_SECRETS_FILE = 'emulator/demo-secret.json';
const DEFAULT_WATCHER_STATE_FILE = '.local/watcher-state.json';
/**
 * Bulk call defaults, chosen by measurement (`npm run bench -- --only=scale`, docs/benchmarks.md):
 * 100 jobs a page where the platform accepts it, 8 calls in flight. At 50 ms a call, 8 in flight
 * is about 160 calls a second: 400 cancels in under 3 s. Against a gateway throttling at 100
 * calls a second, 8 reached that limit's pace with a dozen 429s in 500 cancels, where 16 and 32
 * took as long with four and eight times as many. The platform's limits are set per API stage
 * and are not known here: where they are higher, BULK_CANCEL_CONCURRENCY=16 halves the time.
 */
const DEFAULT_BULK: BulkSettings = { pageSize: 100, pageConcurrency: 8, cancelConcurrency: 8 };

/**
 * True inside a real Lambda container. Local emulations set AWS_LAMBDA_FUNCTION_NAME too, and
 * say who they are: serverless offline with IS_OFFLINE, `serverless invoke local` with IS_LOCAL.
 */
function runsOnAws(env: NodeJS.ProcessEnv): boolean {
  return Boolean(env.AWS_LAMBDA_FUNCTION_NAME) && !env.IS_OFFLINE && !env.IS_LOCAL;
}

/**
 * Parses the environment. Empty strings count as unset, because `serverless.yml` passes
 * `${env:X, ''}` for variables the shell did not set.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const schema = environmentSchema();
  const present = Object.fromEntries(
    Object.keys(schema.shape)
      .map((key) => [key, env[key]] as const)
      .filter(([, value]) => value !== undefined && value !== ''),
  );
  const parsed = schema.safeParse(present);
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (issue) => `${issue.path.join('.') || '(environment)'}: ${issue.message}`,
    );
    throw new ConfigError(`Invalid configuration: ${problems.join('; ')}`);
  }
  const vars = parsed.data;
  const emulatorPort = vars.EMULATOR_PORT ?? DEFAULT_EMULATOR_PORT;
  const emulatorUrl = new URL(`http://127.0.0.1:${emulatorPort}`);
  const secretsSource = vars.SECRETS_SOURCE ?? (runsOnAws(env) ? 'aws' : 'file');
  const secretIds = Object.fromEntries(
    SECRET_CAPABILITIES.map((capability) => [
      capability,
      (vars as Record<string, string | undefined>)[secretIdSetting(capability)],
    ]),
  ) as Record<SecretCapability, string | undefined>;
  if (
    secretsSource === 'aws' &&
    !vars.SECRET_ID &&
    SECRET_CAPABILITIES.some((capability) => !secretIds[capability])
  ) {
    throw new ConfigError(
      'Invalid configuration: SECRET_ID: required when SECRETS_SOURCE is aws, unless each ' +
        `capability has a secret of its own (${SECRET_CAPABILITIES.map(secretIdSetting).join(', ')})`,
    );
  }
  const deployed = runsOnAws(env);
  if (deployed) {
    const insecure = [
      ['SCAN_BASE_URL', vars.SCAN_BASE_URL],
      ['OPENAPI_BASE_URL', vars.OPENAPI_BASE_URL],
      ...Object.entries(vars.OPENAPI_SERVICE_URLS ?? {}).map(
        ([service, url]) => [`OPENAPI_SERVICE_URLS.${service}`, url] as const,
      ),
    ].filter(([, url]) => url !== undefined && !isSecureUrl(url));
    if (insecure.length > 0) {
      throw new ConfigError(
        `Invalid configuration: ${insecure.map(([name]) => `${name}: expected an https URL when deployed (loopback hosts excepted)`).join('; ')}`,
      );
    }
  }
  return {
    deployed,
    emulatorPort,
    // Deployed, an unset URL must not fall back to a local emulator address.
    scanBaseUrl: vars.SCAN_BASE_URL ?? (runsOnAws(env) ? undefined : emulatorUrl),
    openapiBaseUrl: vars.OPENAPI_BASE_URL ?? (runsOnAws(env) ? undefined : emulatorUrl),
    openapiServiceUrls: new Map(Object.entries(vars.OPENAPI_SERVICE_URLS ?? {})),
    gatewayVendor: (vars.GATEWAY_VENDOR ?? 'platform').toLowerCase(),
    secretsSource,
    secretsFile: path.resolve(vars.SECRETS_FILE ?? DEFAULT_SECRETS_FILE),
    secretId: vars.SECRET_ID,
    secretIds,
    jwtIssuer: vars.JWT_ISSUER_URL,
    jwtAllowStarScope: vars.JWT_ALLOW_STAR_SCOPE === 'true',
    secretsExtension:
      vars.SECRETS_EXTENSION_PORT && vars.AWS_SESSION_TOKEN !== undefined
        ? { port: vars.SECRETS_EXTENSION_PORT, token: vars.AWS_SESSION_TOKEN }
        : undefined,
    secretsReader: vars.SECRETS_READER ?? (vars.SECRETS_EXTENSION_PORT ? 'extension' : 'signed'),
    aws: awsEnvironmentOf(vars),
    secretsTtlMs: (vars.SECRETS_TTL_SECONDS ?? 300) * 1000,
    callersMaxStaleMs: (vars.CALLERS_MAX_STALE_SECONDS ?? DEFAULT_CALLERS_MAX_STALE_SECONDS) * 1000,
    upstreamTimeoutMs: vars.UPSTREAM_TIMEOUT_MS ?? 8000,
    webhookMaxBodyBytes: vars.WEBHOOK_MAX_BODY_BYTES ?? DEFAULT_WEBHOOK_MAX_BODY_BYTES,
    bulk: {
      pageSize: vars.BULK_PAGE_SIZE ?? DEFAULT_BULK.pageSize,
      pageConcurrency: vars.BULK_PAGE_CONCURRENCY ?? DEFAULT_BULK.pageConcurrency,
      cancelConcurrency: vars.BULK_CANCEL_CONCURRENCY ?? DEFAULT_BULK.cancelConcurrency,
    },
    watcherStateTable: vars.WATCHER_STATE_TABLE,
    watcherStateFile: vars.WATCHER_STATE_FILE
      ? path.resolve(vars.WATCHER_STATE_FILE)
      : runsOnAws(env)
        ? undefined
        : path.resolve(DEFAULT_WATCHER_STATE_FILE),
    eventBusName: vars.EVENT_BUS_NAME,
    invocationQueueUrl: vars.INVOCATION_QUEUE_URL,
    invocationDeadLetterQueueUrl: vars.INVOCATION_DEAD_LETTER_QUEUE_URL,
    deliveryBodyBucket: vars.DELIVERY_BODY_BUCKET,
    deliveryLedgerTable: vars.DELIVERY_LEDGER_TABLE,
    usageTable: vars.USAGE_TABLE,
    usageStoreFailure: vars.USAGE_STORE_FAILURE ?? 'open',
    handOffBucket: vars.HAND_OFF_BUCKET,
    handOffMaxBytes: (vars.HAND_OFF_MAX_MB ?? DEFAULT_HAND_OFF_MAX_MB) * 1024 * 1024,
    deliveryMemoryMs: (vars.DELIVERY_MEMORY_DAYS ?? 4) * 24 * 60 * 60 * 1000,
    invocationMaxReceives: vars.INVOCATION_MAX_RECEIVES ?? 10,
    invocationMaxAttempts: vars.INVOCATION_MAX_ATTEMPTS ?? 5,
    invocationRetrySeconds: vars.INVOCATION_RETRY_SECONDS ?? 10,
    logLevel: vars.LOG_LEVEL ?? 'info',
  };
}

/**
 * LOG_LEVEL alone, for functions that read no other setting (health, the catch-all route). An
 * invalid value falls back to info there: a log level must not take a route down.
 */
export function loadLogLevel(env: NodeJS.ProcessEnv = process.env): LogLevel {
  const parsed = logLevelSchema.safeParse(env.LOG_LEVEL);
  return parsed.success ? parsed.data : 'info';
}

/**
 * Whether the reference (GET /docs, GET /openapi.json) answers without a token: true unless the
 * stage turns it off (PUBLIC_REFERENCE=false, from its publicReference parameter). Read alone,
 * as the log level is, by the functions that serve the reference, which load no more config.
 * An unreadable value fails closed: a token is needed.
 */
export function loadPublicReference(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.PUBLIC_REFERENCE === undefined || env.PUBLIC_REFERENCE === '') return true;
  const parsed = publicReferenceSchema.safeParse(env.PUBLIC_REFERENCE);
  return parsed.success ? parsed.data === 'true' : false;
}

/** The X-Ray trace of the current invocation: Lambda sets it anew for each one. */
export function currentTraceId(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return env._X_AMZN_TRACE_ID || undefined;
}
