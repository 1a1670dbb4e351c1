/**
 * The secret store as a credential source (lib/secrets/credentials.ts), over a real SecretStore
 * and a secret in memory that the test rotates: what get() and refresh() hand the upstream
 * side, how often the selection runs, and which fetch a refresh of a selection causes.
 */
import { describe, expect, it } from 'vitest';
import { credentialsFrom } from '../../../../lib/secrets/credentials.ts';
import type { PlatformSecret } from '../../../../lib/secrets/schema.ts';
import type { SecretSource } from '../../../../lib/secrets/sources.ts';
import { SecretStore } from '../../../../lib/secrets/store.ts';
import { memorySecretSource } from '../../../helpers/secret-source.ts';

const keys = (accessKey: string) => ({ accessKey, secretKey: `${accessKey}-secret` });

/** A store over a secret in memory, with a clock the test moves. */
function storeOf(initial: object) {
  const { source, state } = memorySecretSource(initial);
  const clock = { now: Date.UTC(2026, 10, 25, 10, 0, 0) };
  const store = new SecretStore(source, {
    ttlMs: 300_000,
    minRefreshIntervalMs: 5_000,
    now: () => clock.now,
  });
  const rotate = (secret: object) => {
    state.text = JSON.stringify(secret);
  };
  return { store, state, clock, rotate };
}

/** The IAM keys of a secret, counting the selections. */
function iamKeys() {
  const selections: PlatformSecret[] = [];
  const select = (secret: PlatformSecret) => {
    selections.push(secret);
    if (!secret.iam) throw new Error('The secret holds no iam keys');
    return { ...secret.iam };
  };
  return { select, selections };
}

describe('credentialsFrom', () => {
  it("hands out the secret's credentials, selected once per fetched secret", async () => {
    const { store, state } = storeOf({ iam: keys('AK1') });
    const { select, selections } = iamKeys();
    const credentials = credentialsFrom(store, select);
    const first = await credentials.get();
    expect(first).toEqual(keys('AK1'));
    // The same secret: the same selection, not selected again.
    expect(await credentials.get()).toBe(first);
    expect(selections).toHaveLength(1);
    expect(state.fetches).toBe(1);
  });

  it('selects anew once the store fetches a new secret (its TTL ran out)', async () => {
    const { store, clock, rotate } = storeOf({ iam: keys('AK1') });
    const { select, selections } = iamKeys();
    const credentials = credentialsFrom(store, select);
    await credentials.get();
    rotate({ iam: keys('AK2') });
    clock.now += 300_000;
    expect(await credentials.get()).toEqual(keys('AK2'));
    expect(selections).toHaveLength(2);
  });

  it('refreshes the secret a refused selection came from: a rotation is picked up at once', async () => {
    const { store, state, clock, rotate } = storeOf({ iam: keys('AK1') });
    const credentials = credentialsFrom(store, iamKeys().select);
    const refused = await credentials.get();
    rotate({ iam: keys('AK2') });
    clock.now += 10_000;
    expect(await credentials.refresh(refused)).toEqual(keys('AK2'));
    expect(state.fetches).toBe(2);
  });

  it('fetches nothing more when the refused selection is already out of date', async () => {
    const { store, state, clock, rotate } = storeOf({ iam: keys('AK1') });
    const credentials = credentialsFrom(store, iamKeys().select);
    const stale = await credentials.get();
    rotate({ iam: keys('AK2') });
    clock.now += 10_000;
    const fresh = await credentials.refresh(stale);
    // Another call refused the old keys too: the store already holds newer ones.
    expect(await credentials.refresh(stale)).toBe(fresh);
    expect(state.fetches).toBe(2);
  });

  it('leaves the pace of refreshes to the store (none within its minimum interval)', async () => {
    const { store, state, clock, rotate } = storeOf({ iam: keys('AK1') });
    const credentials = credentialsFrom(store, iamKeys().select);
    const refused = await credentials.get();
    rotate({ iam: keys('AK2') });
    clock.now += 1_000;
    expect(await credentials.refresh(refused)).toBe(refused);
    expect(state.fetches).toBe(1);
  });

  it('takes credentials it never handed out as a plain get', async () => {
    const { store, state } = storeOf({ iam: keys('AK1') });
    const credentials = credentialsFrom(store, iamKeys().select);
    expect(await credentials.refresh(keys('unknown'))).toEqual(keys('AK1'));
    expect(state.fetches).toBe(1);
  });

  it('fails as the selection does when the secret lacks the credentials', async () => {
    const { store } = storeOf({ openapi: { clientId: 'id', clientSecret: 'secret' } });
    const credentials = credentialsFrom(store, iamKeys().select);
    await expect(credentials.get()).rejects.toThrow('The secret holds no iam keys');
  });

  it('keeps each selection apart: two kinds of credentials from one store', async () => {
    const { store, state } = storeOf({
      iam: keys('AK1'),
      openapi: { clientId: 'id', clientSecret: 'secret' },
    });
    const iam = credentialsFrom(store, iamKeys().select);
    const catalogue = credentialsFrom(store, (secret) => ({ ...secret.openapi }));
    expect(await iam.get()).toEqual(keys('AK1'));
    expect(await catalogue.get()).toEqual({ clientId: 'id', clientSecret: 'secret' });
    expect(state.fetches).toBe(1);
  });
});

function timedStoreOf(texts: string[], now: () => number) {
  let fetches = 0;
  const source: SecretSource = {
    description: 'test source',
    fetchText: async () => texts[Math.min(fetches++, texts.length - 1)]!,
  };
  return new SecretStore(source, { ttlMs: 1000, minRefreshIntervalMs: 0, now });
}

const secretOf = (accessKey: string) =>
  JSON.stringify({ iam: { accessKey, secretKey: 'SK-very-secret' } });

describe('credentials at hand, without a promise', () => {
  it('selects once per fetched secret, with or without a promise', async () => {
    let now = 0;
    const store = timedStoreOf([secretOf('AK1'), secretOf('AK2')], () => now);
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

  it('fails the call when the secret lacks what is selected, with or without a promise', async () => {
    const store = timedStoreOf([JSON.stringify({ apiKey: 'k' })], () => 0);
    const keys = credentialsFrom(store, () => {
      throw new Error('no iam');
    });
    await expect(keys.get()).rejects.toThrow('no iam');
    expect(() => keys.current?.()).toThrow('no iam');
  });
});
