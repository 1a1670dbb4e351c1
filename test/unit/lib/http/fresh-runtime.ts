/**
 * For the tests of the bindings that build the container's runtime when they load (callerParts
 * and the handlers built on it): a fresh module graph and this environment, as on a cold start.
 * Import the module under test after calling it; `vi.unstubAllEnvs()` puts the environment back.
 */
import { vi } from 'vitest';
import { DEMO_SECRET_FILE } from '../../../helpers/platform.ts';

export function coldStartWith(env: Record<string, string>): void {
  vi.resetModules();
  vi.unstubAllEnvs();
  const all: Record<string, string> = {
    SECRETS_SOURCE: 'file',
    SECRETS_FILE: DEMO_SECRET_FILE,
    GATEWAY_VENDOR: 'platform',
    UPSTREAM_TIMEOUT_MS: '5000',
    LOG_LEVEL: 'info',
    ...env,
  };
  for (const [name, value] of Object.entries(all)) vi.stubEnv(name, value);
}

/** The demo secret's callers (emulator/demo-secret.json). */
export const DEMO_TOKENS = {
  /** `demo`: scope `*`. */
  all: 'demo-caller-token-for-local-use-only',
  /** `demo-reporting`: `jobs:read` only. */
  reporting: 'demo-reporting-token-reads-jobs-only-01',
  /** `demo-echo`: `actions:echo` only. */
  echo: 'demo-echo-token-runs-the-echo-action-01',
  /** `demo-metered`: `jobs:read`, under a plan (5 a second, a burst of 10). */
  metered: 'demo-metered-token-reads-jobs-under-a-plan',
} as const;
