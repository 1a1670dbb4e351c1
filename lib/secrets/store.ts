/**
 * The secret store: one validated secret, cached for a TTL, fetched by one request at a time
 * however many invocations wait for it, and fetched again on demand when the platform says
 * the credentials no longer work (they may have been rotated).
 *
 * A bad secret cannot take the service down: a fetch that fails, or brings a document that
 * does not validate, leaves the last good secret in service, and further fetches back off.
 * With no good secret at all, callers get CredentialsUnavailableError (503, Retry-After) while
 * the failure may pass (a timeout, throttling), and MisconfiguredError (500/`900`) when only an
 * operator can mend it (the document does not validate, the secret does not exist or may not be
 * read): telling the caller to try again later would mislead.
 */
import { isSecureUrl } from '../core/deployed-settings.ts';
import {
  CredentialsUnavailableError,
  MisconfiguredError,
  SecretError,
  SecretReadError,
} from '../core/errors.ts';
import { tokenDigestOf } from './callers-schema.ts';
import { isDemoTokenDigest, isDemoWebhookSecret } from './demo-credentials.ts';
import { type PlatformSecret, platformSecretSchema, webhookSecretsOf } from './schema.ts';
import type { SecretSource } from './sources.ts';

export interface FetchFailure {
  /** True when the last good secret keeps serving. */
  readonly servingCached: boolean;
  /** When the next fetch may start, in ms from now. */
  readonly retryInMs: number;
}

/** What a document must be, beyond its shape. */
export interface SecretRules {
  /**
   * The fields it may hold: a secret of one capability holds that capability's fields only (the
   * signing keys never in the catalogue's secret, which its functions read). Undefined: any.
   */
  readonly fields?: readonly (keyof PlatformSecret)[];
  /** Deployed: every action and trigger URL is https (loopback hosts excepted). */
  readonly deployed?: boolean;
  /**
   * A deployed function's secret, in every stage: no credential of the demo secret
   * (demo-credentials.ts). A demo caller's token or the demo webhook's secret refuses it.
   */
  readonly noDemoCredentials?: boolean;
}

interface SecretStoreOptions extends SecretRules {
  readonly ttlMs: number;
  /** Forced refreshes closer together than this reuse the last fetch (no refresh storms). */
  readonly minRefreshIntervalMs?: number;
  /** First wait after a failed fetch; it doubles with each failure, up to maxBackoffMs. */
  readonly backoffMs?: number;
  readonly maxBackoffMs?: number;
  readonly now?: () => number;
  /** A fetch failed (unreadable source or invalid document); the error names fields only. */
  readonly onFailure?: (error: unknown, failure: FetchFailure) => void;
  /** A fetch brought a valid document (the first one at cold start, then each refresh). */
  readonly onLoad?: (secret: PlatformSecret) => void;
}

/** A secret with the time it was fetched: how old the store's copy is. */
export interface FetchedSecret {
  readonly value: PlatformSecret;
  readonly fetchedAt: number;
}

/** A few seconds: a broken secret costs one fetch per container every few seconds at most. */
const DEFAULT_BACKOFF_MS = 3000;
const DEFAULT_MAX_BACKOFF_MS = 60_000;

export class SecretStore {
  private cached: FetchedSecret | undefined;
  private inflight: Promise<PlatformSecret> | undefined;
  private failures = 0;
  private nextAttemptAt = 0;
  private lastFailure: unknown;
  private readonly now: () => number;
  private readonly minRefreshIntervalMs: number;

  private readonly source: SecretSource;
  private readonly options: SecretStoreOptions;

  constructor(source: SecretSource, options: SecretStoreOptions) {
    this.source = source;
    this.options = options;
    this.now = options.now ?? (() => Date.now());
    this.minRefreshIntervalMs = options.minRefreshIntervalMs ?? 5000;
  }

  /** The cached secret while it is fresh; otherwise one shared fetch (unless backing off). */
  get(): Promise<PlatformSecret> {
    const fresh = this.peek();
    return fresh ? Promise.resolve(fresh) : this.load();
  }

  /**
   * The cached secret while it is fresh, with no promise in between (what every request of a
   * warm container finds); undefined when get() would fetch.
   */
  peek(): PlatformSecret | undefined {
    const cached = this.cached;
    return cached && this.now() - cached.fetchedAt < this.options.ttlMs ? cached.value : undefined;
  }

  /**
   * As get(), with the time the secret was fetched: while fetches fail, the last good secret
   * keeps serving, and its age tells a reader (the caller check) how stale it is.
   */
  getFetched(): Promise<FetchedSecret> {
    const cached = this.cached;
    // Every request asks: a fresh secret is answered without another promise in between.
    if (cached && this.now() - cached.fetchedAt < this.options.ttlMs) {
      return Promise.resolve(cached);
    }
    return this.get().then((value) => {
      const latest = this.cached;
      return { value, fetchedAt: latest?.value === value ? latest.fetchedAt : this.now() };
    });
  }

  /** When the next fetch may start, in ms from now (0 when it may start at once). */
  retryInMs(): number {
    return Math.max(0, this.nextAttemptAt - this.now());
  }

  /**
   * Fetches again because `stale` was refused. If the store already holds a newer secret, or
   * fetched one very recently, that one is returned without another fetch.
   */
  refresh(stale: PlatformSecret): Promise<PlatformSecret> {
    const cached = this.cached;
    if (cached && cached.value !== stale) return Promise.resolve(cached.value);
    if (cached && this.now() - cached.fetchedAt < this.minRefreshIntervalMs) {
      return Promise.resolve(cached.value);
    }
    return this.load();
  }

  /** Starts a fetch now (at cold start) so that the first request finds it under way. */
  prefetch(): void {
    this.get().catch(() => {
      // The first request that needs the secret reports the failure.
    });
  }

  clear(): void {
    this.cached = undefined;
    this.failures = 0;
    this.nextAttemptAt = 0;
  }

  private load(): Promise<PlatformSecret> {
    if (this.inflight) return this.inflight;
    const waitMs = this.nextAttemptAt - this.now();
    if (waitMs > 0) {
      // Backing off: the last good secret, or the caller is told when to come back.
      if (this.cached) return Promise.resolve(this.cached.value);
      return Promise.reject(unavailable(waitMs, this.lastFailure));
    }
    this.inflight = this.fetchAndParse().finally(() => {
      this.inflight = undefined;
    });
    return this.inflight;
  }

  private async fetchAndParse(): Promise<PlatformSecret> {
    let value: PlatformSecret;
    try {
      let text: string;
      try {
        text = await this.source.fetchText();
      } catch (error) {
        throw new SecretError(`Could not read the secret from ${this.source.description}`, {
          cause: error,
          misconfigured: isMisconfiguredRead(error),
        });
      }
      value = parseSecret(text, this.source.description, this.options);
    } catch (error) {
      return this.failed(error);
    }
    this.failures = 0;
    this.nextAttemptAt = 0;
    this.lastFailure = undefined;
    this.cached = { value, fetchedAt: this.now() };
    this.options.onLoad?.(value);
    return value;
  }

  private failed(error: unknown): PlatformSecret {
    this.failures++;
    const backoff = Math.min(
      (this.options.backoffMs ?? DEFAULT_BACKOFF_MS) * 2 ** (this.failures - 1),
      this.options.maxBackoffMs ?? DEFAULT_MAX_BACKOFF_MS,
    );
    this.nextAttemptAt = this.now() + backoff;
    this.lastFailure = error;
    this.options.onFailure?.(error, {
      servingCached: this.cached !== undefined,
      retryInMs: backoff,
    });
    if (this.cached) return this.cached.value;
    throw unavailable(backoff, error);
  }
}

/** What a caller is told while no good secret exists, by what the last failure was. */
function unavailable(waitMs: number, failure: unknown): Error {
  return isMisconfiguration(failure)
    ? new MisconfiguredError(failure)
    : new CredentialsUnavailableError(waitMs / 1000, failure);
}

/** A failure only an operator can mend (the secret is invalid, missing or forbidden). */
export function isMisconfiguration(failure: unknown): boolean {
  return failure instanceof SecretError && failure.misconfigured;
}

/**
 * Refusals of a read that no retry changes: the secret does not exist (or is being deleted), the
 * function's role may not read it or decrypt it, it holds no value; locally, no such file.
 */
const MISCONFIGURED_READS = new Set([
  'ResourceNotFoundException',
  'AccessDeniedException',
  'AccessDenied',
  'DecryptionFailure',
  'InvalidRequestException',
  'NoValue',
  'ENOENT',
  'EACCES',
  'EISDIR',
]);

function isMisconfiguredRead(error: unknown): boolean {
  if (error instanceof SecretReadError) return MISCONFIGURED_READS.has(error.type);
  if (!(error instanceof Error)) return false;
  const code = (error as NodeJS.ErrnoException).code;
  return (
    MISCONFIGURED_READS.has(error.name) || (code !== undefined && MISCONFIGURED_READS.has(code))
  );
}

/**
 * The fields of a secret that hold a credential of the demo secret, which anyone who reads this
 * repository knows: every stage refuses them, `dev` too. Named by field, never by value.
 */
function demoCredentialsIn(secret: PlatformSecret): string[] {
  const published =
    'published in this repository (emulator/demo-secret.json): no deployed stage takes it';
  const token = `a demo caller's token, ${published}; make a new one with npm run new-caller`;
  const key = `the demo webhook's secret, ${published}; make a new one (whsec_ and 32 random bytes in base64)`;
  const problems: string[] = [];
  secret.callers?.forEach((caller, index) => {
    const field = caller.token === undefined ? 'tokenSha256' : 'token';
    if (isDemoTokenDigest(tokenDigestOf(caller))) {
      problems.push(`callers.${index}.${field}: ${token}`);
    }
  });
  secret.callerTokens?.forEach((value, index) => {
    if (isDemoTokenDigest(tokenDigestOf({ token: value }))) {
      problems.push(`callerTokens.${index}: ${token}`);
    }
  });
  for (const [name, webhook] of Object.entries(secret.webhooks ?? {})) {
    webhookSecretsOf(webhook).forEach((value, index) => {
      if (!isDemoWebhookSecret(value)) return;
      problems.push(`webhooks.${name}.${webhook.secrets ? `secrets.${index}` : 'secret'}: ${key}`);
    });
  }
  return problems;
}

/**
 * Parses and validates the secret's JSON; errors name fields, never values. A document holding
 * a field its rules leave out is refused whole: what it holds is readable by every function that
 * reads it, so a signing key in the catalogue's secret must be moved, not ignored.
 */
export function parseSecret(
  text: string,
  origin = 'the secret',
  rules: SecretRules = {},
): PlatformSecret {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new SecretError(`The secret from ${origin} is not valid JSON`, { misconfigured: true });
  }
  const parsed = platformSecretSchema.safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`,
    );
    throw new SecretError(`The secret from ${origin} is invalid: ${problems.join('; ')}`, {
      misconfigured: true,
    });
  }
  const secret = parsed.data;
  const problems: string[] = [];
  if (rules.fields) {
    const allowed = new Set<string>(rules.fields);
    for (const field of Object.keys(secret)) {
      if (!allowed.has(field)) {
        problems.push(`${field}: not allowed here (this secret holds ${rules.fields.join(', ')})`);
      }
    }
  }
  if (rules.noDemoCredentials) problems.push(...demoCredentialsIn(secret));
  if (rules.deployed) {
    for (const kind of ['actions', 'triggers'] as const) {
      for (const [name, entry] of Object.entries(secret[kind] ?? {})) {
        if (!isSecureUrl(entry.url)) {
          problems.push(
            `${kind}.${name}.url: expected an https URL when deployed (loopback hosts excepted)`,
          );
        }
      }
    }
  }
  if (problems.length > 0) {
    throw new SecretError(`The secret from ${origin} is invalid: ${problems.join('; ')}`, {
      misconfigured: true,
    });
  }
  return secret;
}
