/**
 * What a deployed function demands of its settings, once they are loaded (config.ts): a setting
 * only some functions need is there when such a function starts (its init fails, naming the
 * variable), and credentials travel only to https (or a loopback host: a local stand-in, a
 * benchmark's upstream). Locally, a part that must exist when deployed may be left out.
 */
import { ConfigError } from './errors.ts';

/** The hosts a plain http:// URL may name when deployed: local stand-ins and benchmarks. */
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * Whether credentials may travel to this URL when deployed: https, or a loopback host (a local
 * stand-in of the platform, a benchmark's upstream).
 */
export function isSecureUrl(url: URL | string): boolean {
  const parsed = typeof url === 'string' ? new URL(url) : url;
  return parsed.protocol === 'https:' || LOOPBACK_HOSTS.has(parsed.hostname);
}

/**
 * A setting only some functions need (a base URL), checked when the function that needs it
 * starts: a deployed function fails its init with the variable's name.
 */
export function requiredSetting<T>(value: T | undefined, name: string): T {
  if (value === undefined) {
    throw new ConfigError(`Invalid configuration: ${name}: required when deployed`);
  }
  return value;
}

/** A setting that is required when deployed (a part that must exist there) and optional locally. */
export function deployedSetting<T>(
  config: { readonly deployed: boolean },
  value: T | undefined,
  name: string,
): T | undefined {
  return config.deployed ? requiredSetting(value, name) : value;
}
