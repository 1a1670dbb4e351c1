/**
 * The composition root's secrets: one store per secret, capabilities kept together sharing it,
 * and which capabilities a function can read together (nothing is fetched here).
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../lib/core/config.ts';
import { createRuntime } from '../../../lib/runtime.ts';
import { consumerDepsOf } from '../../../lib/webhooks/setup.ts';

const SPLIT = {
  SECRETS_SOURCE: 'aws',
  SIGNING_SECRET_ID: 'gw/dev/signing',
  CATALOGUE_SECRET_ID: 'gw/dev/catalogue',
  EXECUTION_SECRET_ID: 'gw/dev/execution',
  WEBHOOKS_SECRET_ID: 'gw/dev/webhooks',
  CALLERS_SECRET_ID: 'gw/dev/callers',
};

describe("the runtime's secrets", () => {
  it('keeps one store for every capability of one secret (a file, or SECRET_ID)', () => {
    for (const env of [{}, { SECRETS_SOURCE: 'aws', SECRET_ID: 'gw/dev/platform' }]) {
      const runtime = createRuntime(loadConfig(env));
      const store = runtime.secretsFor('signing');
      for (const capability of ['catalogue', 'execution', 'webhooks', 'callers'] as const) {
        expect(runtime.secretsFor(capability)).toBe(store);
      }
      expect(runtime.sameSecret('webhooks', 'execution')).toBe(true);
      expect(consumerDepsOf(runtime).webhooks).toBe(store);
    }
  });

  it('keeps a store per secret when each capability has its own, and the consumer reads no webhooks', () => {
    const runtime = createRuntime(loadConfig(SPLIT));
    const stores = new Set(
      (['signing', 'catalogue', 'execution', 'webhooks', 'callers'] as const).map((capability) =>
        runtime.secretsFor(capability),
      ),
    );
    expect(stores.size).toBe(5);
    expect(runtime.sameSecret('webhooks', 'execution')).toBe(false);
    expect(consumerDepsOf(runtime).webhooks).toBeUndefined();
  });

  it('shares SECRET_ID among the capabilities without a secret of their own', () => {
    const runtime = createRuntime(
      loadConfig({
        SECRETS_SOURCE: 'aws',
        SECRET_ID: 'gw/dev/rest',
        WEBHOOKS_SECRET_ID: 'gw/dev/hooks',
      }),
    );
    expect(runtime.secretsFor('signing')).toBe(runtime.secretsFor('execution'));
    expect(runtime.secretsFor('webhooks')).not.toBe(runtime.secretsFor('execution'));
  });
});
