import { hash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  CredentialsUnavailableError,
  MisconfiguredError,
  SecretError,
  SecretReadError,
} from '../../../../lib/core/errors.ts';
import { fileSecretSource, type SecretSource } from '../../../../lib/secrets/sources.ts';
import {
  type FetchFailure,
  isMisconfiguration,
  parseSecret,
  SecretStore,
} from '../../../../lib/secrets/store.ts';

const DEMO_FILE = path.resolve(import.meta.dirname, '../../../../emulator/demo-secret.json');

const secretText = (accessKey: string) =>
  JSON.stringify({
    iam: { accessKey, secretKey: 'SK-very-secret' },
    callers: [{ id: 'c', token: 'caller-token-000000000000000000000000', scopes: ['*'] }],
  });

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

const LONG_TOKEN = 'a-caller-token-of-thirty-two-chars-or-more';

function clock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe('SecretStore', () => {
  it('hands the fresh secret over without a promise, and nothing before a fetch or past the TTL', async () => {
    const control = controlledSource(secretText('AK1'));
    const time = clock();
    const store = new SecretStore(control.source, { ttlMs: 60_000, now: time.now });
    expect(store.peek()).toBeUndefined();
    const fetched = store.get();
    control.releaseAll();
    const secret = await fetched;
    expect(store.peek()).toBe(secret);
    time.advance(60_000);
    expect(store.peek()).toBeUndefined();
    expect(control.fetches()).toBe(1);
  });

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
    const stale: FetchFailure[] = [];
    const store = new SecretStore(control.source, {
      ttlMs: 1000,
      now: time.now,
      onFailure: (_error, failure) => stale.push(failure),
    });
    const initial = store.get();
    control.releaseAll();
    await initial;
    time.advance(2000);
    control.failNextFetch();
    const again = store.get();
    control.releaseAll();
    expect((await again).iam?.accessKey).toBe('AK1');
    expect(stale).toEqual([{ servingCached: true, retryInMs: 3000 }]);
  });

  it('reports a source that fails before any secret was read', async () => {
    const control = controlledSource(secretText('AK1'));
    control.failNextFetch();
    const store = new SecretStore(control.source, { ttlMs: 1000 });
    const attempt = store.get();
    control.releaseAll();
    await expect(attempt).rejects.toBeInstanceOf(CredentialsUnavailableError);
    await expect(attempt).rejects.toMatchObject({ status: 503, code: '500' });
    const error = (await attempt.catch((e: unknown) => e)) as Error;
    expect(error.cause).toBeInstanceOf(SecretError);
    expect((error.cause as Error).message).toMatch(/test source/);
  });

  it('keeps the last good secret when a later one does not validate, and backs off', async () => {
    const control = controlledSource(secretText('AK1'));
    const time = clock();
    const failures: FetchFailure[] = [];
    const store = new SecretStore(control.source, {
      ttlMs: 1000,
      now: time.now,
      onFailure: (_error, failure) => failures.push(failure),
    });
    const initial = store.get();
    control.releaseAll();
    await initial;
    control.rotate(
      JSON.stringify({ iam: { accessKey: 'AK2' }, webhooks: { x: { secret: 'no' } } }),
    );
    time.advance(2000);
    for (let i = 0; i < 25; i++) {
      const got = store.get();
      control.releaseAll();
      expect((await got).iam?.accessKey).toBe('AK1');
    }
    // 25 requests after the TTL: one fetch, then the backoff keeps the source quiet.
    expect(control.fetches()).toBe(2);
    expect(failures).toEqual([{ servingCached: true, retryInMs: 3000 }]);
    time.advance(3000);
    const retried = store.get();
    control.releaseAll();
    expect((await retried).iam?.accessKey).toBe('AK1');
    expect(control.fetches()).toBe(3);
    // Each failure doubles the wait.
    expect(failures[1]).toEqual({ servingCached: true, retryInMs: 6000 });
  });

  it('answers 500/900, not "try again later", while no good secret exists and only an operator can mend it; then recovers', async () => {
    const control = controlledSource('{"iam":{"accessKey":""}}');
    const time = clock();
    const store = new SecretStore(control.source, { ttlMs: 60_000, now: time.now });
    const errors: unknown[] = [];
    for (let i = 0; i < 25; i++) {
      const got = store.get();
      control.releaseAll();
      errors.push(await got.catch((e: unknown) => e));
    }
    expect(control.fetches()).toBe(1);
    for (const error of errors) {
      expect(error).toBeInstanceOf(MisconfiguredError);
      expect(error).toMatchObject({ status: 500, code: '900' });
      expect((error as MisconfiguredError).details).not.toMatch(/try again later/i);
      expect((error as MisconfiguredError).details).toMatch(/operator must correct it/);
      // The field is named in the cause (for the log), its value never; the answer names neither.
      expect(String((error as Error).cause)).toContain('iam.accessKey');
      expect(String((error as MisconfiguredError).details)).not.toContain('iam');
      expect(isMisconfiguration((error as Error).cause)).toBe(true);
    }
    time.advance(1000);
    expect(await store.get().catch((e: unknown) => e)).toBeInstanceOf(MisconfiguredError);
    time.advance(2000);
    control.rotate(secretText('AK3'));
    const fixed = store.get();
    control.releaseAll();
    expect((await fixed).iam?.accessKey).toBe('AK3');
    expect(control.fetches()).toBe(2);
  });

  it('answers 503 with Retry-After while a failure may pass (the source failed), and 500 for a missing secret', async () => {
    const control = controlledSource(secretText('AK1'));
    const time = clock();
    control.failNextFetch();
    const store = new SecretStore(control.source, { ttlMs: 60_000, now: time.now });
    const first = store.get();
    control.releaseAll();
    const error = await first.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CredentialsUnavailableError);
    expect((error as CredentialsUnavailableError).headers['Retry-After']).toBe('3');
    time.advance(1000);
    const waiting = await store.get().catch((e: unknown) => e);
    expect((waiting as CredentialsUnavailableError).headers['Retry-After']).toBe('2');

    for (const missing of [
      new SecretReadError(
        'Secrets Manager answered 400 ResourceNotFoundException',
        'ResourceNotFoundException',
      ),
      Object.assign(new Error('ENOENT: no such file'), { code: 'ENOENT' }),
    ]) {
      const gone = new SecretStore(
        { description: 'test source', fetchText: () => Promise.reject(missing) },
        { ttlMs: 60_000 },
      );
      const refused = await gone.get().catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(MisconfiguredError);
      expect(refused).toMatchObject({ status: 500, code: '900' });
    }
    const throttled = new SecretStore(
      {
        description: 'test source',
        fetchText: () =>
          Promise.reject(
            new SecretReadError('Secrets Manager answered 400', 'ThrottlingException'),
          ),
      },
      { ttlMs: 60_000 },
    );
    expect(await throttled.get().catch((e: unknown) => e)).toBeInstanceOf(
      CredentialsUnavailableError,
    );
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
  it('accepts the secret as docs/secret.md describes it, with absent optional fields', () => {
    const secret = parseSecret(
      JSON.stringify({
        iam: { accessKey: 'AK', secretKey: 'SK' },
        apiKey: 'k',
        openapi: { clientId: 'id', clientSecret: 'cs' },
        actions: { hello: { url: 'https://gw.example.com/abc/dev/hello', web: true, apiKey: 'x' } },
        triggers: { nightly: { url: 'https://gw.example.com/abc/dev/nightly' } },
        webhooks: { github: { secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', action: 'hello' } },
        callers: [
          { id: 'reporting', token: LONG_TOKEN, scopes: ['jobs:read'] },
          {
            id: 'deploy-bot',
            token: `${LONG_TOKEN}-2`,
            scopes: ['actions:deploy', 'triggers:*', 'catalogue:maps'],
            notAfter: '2027-01-31T00:00:00Z',
          },
        ],
        callerTokens: [`${LONG_TOKEN}-3`],
      }),
    );
    expect(secret.actions?.hello?.web).toBe(true);
    expect(secret.callers?.map((caller) => caller.id)).toEqual(['reporting', 'deploy-bot']);
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

  it('refuses a token under 32 characters, naming the field and never the token', () => {
    const short = 'short-token-31-characters-long!';
    expect(short).toHaveLength(31);
    const messageOf = (secret: unknown) => {
      try {
        parseSecret(JSON.stringify(secret));
      } catch (error) {
        return (error as Error).message;
      }
      throw new Error('accepted');
    };
    const named = messageOf({ callers: [{ id: 'a', token: short, scopes: ['*'] }] });
    expect(named).toContain('callers.0.token: expected a token of at least 32 characters');
    expect(named).not.toContain(short);
    const legacy = messageOf({ callerTokens: [LONG_TOKEN, short] });
    expect(legacy).toContain('callerTokens.1');
    expect(legacy).not.toContain(short);
    expect(messageOf({ callerTokens: ['x'] })).toContain('callerTokens.0');
  });

  it.each([
    ['an unknown scope', { scopes: ['job:read'] }, 'callers.0.scopes.0'],
    ['a wildcard the vocabulary has not', { scopes: ['jobs:*'] }, 'callers.0.scopes.0'],
    ['an unknown catalogue API', { scopes: ['catalogue:weather'] }, 'callers.0.scopes.0'],
    ['no scope', { scopes: [] }, 'callers.0.scopes'],
    ['a bad id', { id: 'has space' }, 'callers.0.id'],
    ['a bad notAfter', { notAfter: 'tomorrow' }, 'callers.0.notAfter'],
  ])('refuses a caller with %s', (_case, change, field) => {
    const caller = { id: 'a', token: LONG_TOKEN, scopes: ['*'], ...change };
    expect(() => parseSecret(JSON.stringify({ callers: [caller] }))).toThrow(field);
  });

  it('refuses a field its capability does not hold, naming the field, never its value', () => {
    const text = JSON.stringify({
      openapi: { clientId: 'id', clientSecret: 'cs' },
      iam: { accessKey: 'AK', secretKey: 'SK-in-the-wrong-secret' },
    });
    expect(() => parseSecret(text, 'the catalogue secret', { fields: ['openapi'] })).toThrow(
      'iam: not allowed here (this secret holds openapi)',
    );
    try {
      parseSecret(text, 'x', { fields: ['openapi'] });
    } catch (error) {
      expect((error as Error).message).not.toContain('SK-in-the-wrong-secret');
    }
    expect(parseSecret(text, 'x', { fields: ['openapi', 'iam'] }).iam?.accessKey).toBe('AK');
  });

  it('wants https action and trigger URLs when deployed, loopback hosts excepted', () => {
    const text = JSON.stringify({
      actions: {
        plain: { url: 'http://gw.example.com/abc/dev/plain' },
        local: { url: 'http://127.0.0.1:4010/abc/dev/local' },
        named: { url: 'http://localhost:4010/abc/dev/named' },
        six: { url: 'http://[::1]:4010/abc/dev/six' },
        safe: { url: 'https://gw.example.com/abc/dev/safe' },
      },
      triggers: { nightly: { url: 'http://gw.example.com/abc/dev/nightly' } },
    });
    expect(() => parseSecret(text, 'x', { deployed: true })).toThrow(
      /actions\.plain\.url: expected an https URL when deployed \(loopback hosts excepted\); triggers\.nightly\.url/,
    );
    // Locally, plain http is fine.
    expect(Object.keys(parseSecret(text).actions ?? {})).toHaveLength(5);
  });

  it('refuses every demo credential when deployed, dev included, by its field and never its value; locally, takes them', () => {
    const demo = JSON.parse(readFileSync(DEMO_FILE, 'utf8')) as {
      callers: { id: string; token: string; scopes: string[] }[];
      webhooks: { demo: { secret: string; action: string } };
    };
    const [first, second, third] = demo.callers;
    const own = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
    const text = JSON.stringify({
      callers: [
        first,
        {
          ...second,
          token: undefined,
          tokenSha256: hash('sha256', second!.token, 'hex').toUpperCase(),
        },
        { id: 'own', token: 'a-token-of-this-stage-only-0123456789', scopes: ['*'] },
      ],
      callerTokens: [third!.token],
      webhooks: { demo: demo.webhooks.demo },
    });
    // While it rotates, a webhook holds two secrets: the demo's among them is refused too.
    const rotating = JSON.stringify({
      webhooks: { rotating: { secrets: [own, demo.webhooks.demo.secret], action: 'hello' } },
    });
    const refusal = (document: string) => {
      try {
        parseSecret(document, 'x', { noDemoCredentials: true });
      } catch (error) {
        expect(error).toBeInstanceOf(SecretError);
        expect(isMisconfiguration(error)).toBe(true);
        return (error as Error).message;
      }
      return '';
    };
    const message = `${refusal(text)} ${refusal(rotating)}`;
    expect(message).toContain("callers.0.token: a demo caller's token");
    expect(message).toContain("callers.1.tokenSha256: a demo caller's token");
    expect(message).toContain("callerTokens.0: a demo caller's token");
    expect(message).toContain("webhooks.demo.secret: the demo webhook's secret");
    expect(message).toContain("webhooks.rotating.secrets.1: the demo webhook's secret");
    expect(message).not.toContain('callers.2');
    expect(message).not.toContain('secrets.0');
    for (const value of [first!.token, second!.token, third!.token, demo.webhooks.demo.secret]) {
      expect(message).not.toContain(value);
    }
    // The emulator needs them locally.
    expect(parseSecret(text).callers).toHaveLength(3);
  });

  it('refuses two callers with one id but other scopes, or one token', () => {
    const one = { id: 'a', token: LONG_TOKEN, scopes: ['*'] };
    expect(() =>
      parseSecret(
        JSON.stringify({
          callers: [one, { ...one, token: `${LONG_TOKEN}x`, scopes: ['jobs:read'] }],
        }),
      ),
    ).toThrow('callers.1.id: duplicate caller id with other scopes');
    // One id with two tokens and the same scopes: a rotation (docs/callers.md).
    expect(
      parseSecret(JSON.stringify({ callers: [one, { ...one, token: `${LONG_TOKEN}x` }] })).callers,
    ).toHaveLength(2);
    expect(() => parseSecret(JSON.stringify({ callers: [one, { ...one, id: 'b' }] }))).toThrow(
      'callers.1.token: duplicate token',
    );
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
