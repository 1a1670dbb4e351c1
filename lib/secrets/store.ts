/**
 * The secret store: one validated secret, cached for a TTL, fetched by one request at a time
 * however many invocations wait for it, and fetched again on demand when the platform says
 * the credentials no longer work (they may have been rotated).
 */
import { type PlatformSecret, platformSecretSchema } from './schema.js';
import type { SecretSource } from './sources.js';

export class SecretError extends Error {
  override readonly name = 'SecretError';
}

export interface SecretStoreOptions {
  readonly ttlMs: number;
  /** Forced refreshes closer together than this reuse the last fetch (no refresh storms). */
  readonly minRefreshIntervalMs?: number;
  readonly now?: () => number;
  readonly onStale?: (error: unknown) => void;
}

interface Cached {
  readonly value: PlatformSecret;
  readonly fetchedAt: number;
}

export class SecretStore {
  private cached: Cached | undefined;
  private inflight: Promise<PlatformSecret> | undefined;
  private readonly now: () => number;
  private readonly minRefreshIntervalMs: number;

  constructor(
    private readonly source: SecretSource,
    private readonly options: SecretStoreOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.minRefreshIntervalMs = options.minRefreshIntervalMs ?? 5000;
  }

  /** The cached secret while it is fresh; otherwise one shared fetch. */
  get(): Promise<PlatformSecret> {
    const cached = this.cached;
    if (cached && this.now() - cached.fetchedAt < this.options.ttlMs) {
      return Promise.resolve(cached.value);
    }
    return this.load();
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
      // The first request that needs the secret fetches again and reports the failure.
    });
  }

  clear(): void {
    this.cached = undefined;
  }

  private load(): Promise<PlatformSecret> {
    this.inflight ??= this.fetchAndParse().finally(() => {
      this.inflight = undefined;
    });
    return this.inflight;
  }

  private async fetchAndParse(): Promise<PlatformSecret> {
    let text: string;
    try {
      text = await this.source.fetchText();
    } catch (error) {
      // A stale secret beats no secret: keep serving it while the source is unavailable.
      if (this.cached) {
        this.options.onStale?.(error);
        return this.cached.value;
      }
      throw new SecretError(`Could not read the secret from ${this.source.description}`, {
        cause: error,
      });
    }
    const value = parseSecret(text, this.source.description);
    this.cached = { value, fetchedAt: this.now() };
    return value;
  }
}

/** Parses and validates the secret's JSON; errors name fields, never values. */
export function parseSecret(text: string, origin = 'the secret'): PlatformSecret {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new SecretError(`The secret from ${origin} is not valid JSON`);
  }
  const parsed = platformSecretSchema.safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`,
    );
    throw new SecretError(`The secret from ${origin} is invalid: ${problems.join('; ')}`);
  }
  return parsed.data;
}
