import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fileSecretSource, type SecretSource } from '../../../../lib/secrets/sources.js';
import { parseSecret, SecretError, SecretStore } from '../../../../lib/secrets/store.js';

const secretText = (accessKey: string) =>
  JSON.stringify({ iam: { accessKey, secretKey: 'SK-very-secret' }, callerTokens: ['t'] });

/** A source whose answers the test releases by hand, counting fetches. */
function controlledSource(initial: string) {
  let text = initial;
  let fetches = 0;
  let failNext = false;
  const waiting: (() => void)[] = [];
  const source: SecretSource = {
    description: 'test source',
    fetchText: () => {
      fetches++;
      return new Promise((resolve, reject) => {
        waiting.push(() => (failNext ? reject(new Error('unavailable')) : resolve(text)));
      });
    },
  };
  return {
    source,
    fetches: () => fetches,
    rotate: (next: string) => {
      text = next;
    },
    failNextFetch: () => {
      failNext = true;
    },
    releaseAll: () => {
      for (const release of waiting.splice(0)) release();
    },
  };
}

function clock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe('SecretStore', () => {
  it('fetches once however many requests wait for it', async () => {
    const control = controlledSource(secretText('AK1'));
    const store = new SecretStore(control.source, { ttlMs: 60_000 });
    const waiters = Array.from({ length: 25 }, () => store.get());
    control.releaseAll();
    const values = await Promise.all(waiters);
    expect(control.fetches()).toBe(1);
    expect(new Set(values).size).toBe(1);
    expect(values[0]?.iam?.accessKey).toBe('AK1');
  });

  it('reuses the secret for the TTL, then fetches again', async () => {
    const control = controlledSource(secretText('AK1'));
    const time = clock();
    const store = new SecretStore(control.source, { ttlMs: 300_000, now: time.now });
    const first = store.get();
    control.releaseAll();
    await first;
    time.advance(299_999);
    await store.get();
    expect(control.fetches()).toBe(1);
    time.advance(1);
    control.rotate(secretText('AK2'));
    const second = store.get();
    control.releaseAll();
    expect((await second).iam?.accessKey).toBe('AK2');
    expect(control.fetches()).toBe(2);
  });

  it('refreshes once when the secret is refused, shared by concurrent refusals', async () => {
    const control = controlledSource(secretText('AK1'));
    const time = clock();
    const store = new SecretStore(control.source, { ttlMs: 300_000, now: time.now });
    const initial = store.get();
    control.releaseAll();
    const stale = await initial;
    time.advance(10_000);
    control.rotate(secretText('AK2'));
    const refreshes = [store.refresh(stale), store.refresh(stale), store.refresh(stale)];
    control.releaseAll();
    const fresh = await Promise.all(refreshes);
    expect(control.fetches()).toBe(2);
    expect(fresh.every((s) => s.iam?.accessKey === 'AK2')).toBe(true);
    // A request that still holds the old secret gets the new one without another fetch.
    expect((await store.refresh(stale)).iam?.accessKey).toBe('AK2');
    expect(control.fetches()).toBe(2);
  });

  it('does not refetch for refusals right after a fetch', async () => {
    const control = controlledSource(secretText('AK1'));
    const time = clock();
    const store = new SecretStore(control.source, {
      ttlMs: 300_000,
      minRefreshIntervalMs: 5000,
      now: time.now,
    });
    const initial = store.get();
    control.releaseAll();
    const secret = await initial;
    expect(await store.refresh(secret)).toBe(secret);
    expect(control.fetches()).toBe(1);
  });

  it('keeps serving the cached secret when a later fetch fails', async () => {
    const control = controlledSource(secretText('AK1'));
    const time = clock();
    const stale: unknown[] = [];
    const store = new SecretStore(control.source, {
      ttlMs: 1000,
      now: time.now,
      onStale: (e) => stale.push(e),
    });
    const initial = store.get();
    control.releaseAll();
    await initial;
    time.advance(2000);
    control.failNextFetch();
    const again = store.get();
    control.releaseAll();
    expect((await again).iam?.accessKey).toBe('AK1');
    expect(stale).toHaveLength(1);
  });

  it('reports a source that fails before any secret was read', async () => {
    const control = controlledSource(secretText('AK1'));
    control.failNextFetch();
    const store = new SecretStore(control.source, { ttlMs: 1000 });
    const attempt = store.get();
    control.releaseAll();
    await expect(attempt).rejects.toThrow(SecretError);
    await expect(attempt).rejects.toThrow(/test source/);
  });

  it('reads the file source', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'secret-'));
    const file = path.join(dir, 'secret.json');
    await writeFile(file, secretText('FILEKEY'));
    const store = new SecretStore(fileSecretSource(file), { ttlMs: 1000 });
    expect((await store.get()).iam?.accessKey).toBe('FILEKEY');
  });
});

describe('parseSecret', () => {
  it('accepts the contract document, with absent optional fields', () => {
    const secret = parseSecret(
      JSON.stringify({
        iam: { accessKey: 'AK', secretKey: 'SK' },
        apiKey: 'k',
        openapi: { clientId: 'id', clientSecret: 'cs' },
        actions: { hello: { url: 'https://gw.example.com/abc/dev/hello', web: true, apiKey: 'x' } },
        triggers: { nightly: { url: 'https://gw.example.com/abc/dev/nightly' } },
        webhooks: { github: { secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', action: 'hello' } },
        callerTokens: ['a', 'b'],
      }),
    );
    expect(secret.actions?.hello?.web).toBe(true);
    expect(parseSecret('{}')).toEqual({});
  });

  it('names the malformed field but never prints its value', () => {
    const attempt = () =>
      parseSecret(
        JSON.stringify({ iam: { accessKey: 'AK', secretKey: 12345678 }, callerTokens: [''] }),
      );
    expect(attempt).toThrow(SecretError);
    try {
      attempt();
    } catch (error) {
      const message = (error as Error).message;
      expect(message).toContain('iam.secretKey');
      expect(message).toContain('callerTokens.0');
      expect(message).not.toContain('12345678');
    }
  });

  it('says when the text is not JSON, without echoing it', () => {
    expect(() => parseSecret('SK-super-secret-value')).toThrow(/not valid JSON/);
    try {
      parseSecret('SK-super-secret-value');
    } catch (error) {
      expect((error as Error).message).not.toContain('SK-super');
    }
  });

  it('refuses action URLs that are not http(s)', () => {
    expect(() =>
      parseSecret(JSON.stringify({ actions: { a: { url: 'file:///etc/passwd' } } })),
    ).toThrow(/actions\.a\.url/);
  });
});
