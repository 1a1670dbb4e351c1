import { describe, expect, it } from 'vitest';
import { credentialsFrom } from '../../../../lib/secrets/credentials.js';
import type { SecretSource } from '../../../../lib/secrets/sources.js';
import { SecretStore } from '../../../../lib/secrets/store.js';

function storeOf(texts: string[], now: () => number) {
  let fetches = 0;
  const source: SecretSource = {
    description: 'test source',
    fetchText: async () => texts[Math.min(fetches++, texts.length - 1)]!,
  };
  return new SecretStore(source, { ttlMs: 1000, minRefreshIntervalMs: 0, now });
}

const secretWith = (accessKey: string) =>
  JSON.stringify({ iam: { accessKey, secretKey: 'SK-very-secret' } });

describe('credentialsFrom', () => {
  it('selects once per fetched secret, with or without a promise', async () => {
    let now = 0;
    const store = storeOf([secretWith('AK1'), secretWith('AK2')], () => now);
    let selections = 0;
    const keys = credentialsFrom(store, (secret) => {
      selections++;
      return { accessKey: secret.iam?.accessKey };
    });
    expect(keys.current?.()).toBeUndefined();
    const first = await keys.get();
    expect(first).toEqual({ accessKey: 'AK1' });
    expect(keys.current?.()).toBe(first);
    expect(await keys.get()).toBe(first);
    now += 1000;
    // Past the TTL there is nothing at hand: get() fetches again.
    expect(keys.current?.()).toBeUndefined();
    const second = await keys.get();
    expect(second).toEqual({ accessKey: 'AK2' });
    expect(keys.current?.()).toBe(second);
    expect(selections).toBe(2);
  });

  it('refreshes the secret the refused credentials came from', async () => {
    const store = storeOf([secretWith('AK1'), secretWith('AK2')], () => 0);
    const keys = credentialsFrom(store, (secret) => ({ accessKey: secret.iam?.accessKey }));
    const refused = await keys.get();
    expect(await keys.refresh(refused)).toEqual({ accessKey: 'AK2' });
  });

  it('fails the call when the secret lacks what is selected, with or without a promise', async () => {
    const store = storeOf([JSON.stringify({ apiKey: 'k' })], () => 0);
    const keys = credentialsFrom(store, () => {
      throw new Error('no iam');
    });
    await expect(keys.get()).rejects.toThrow('no iam');
    expect(() => keys.current?.()).toThrow('no iam');
  });
});
