/**
 * Finding a request's caller: the secret's named callers and the deprecated callerTokens,
 * expiry, the bound on how long a secret that cannot be refreshed may still say who the callers
 * are (with an injected clock and a real SecretStore), and JWT claims as API Gateway passes them.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CallerAuthError, CallersUnavailableError } from '../../../../lib/core/errors.ts';
import { grants, scopeOfRequest, scopesGranting } from '../../../../lib/core/scopes.ts';
import { jwtCallers, secretCallers, tokenIndex } from '../../../../lib/http/callers.ts';
import type { SecretSource } from '../../../../lib/secrets/sources.ts';
import { parseSecret, SecretStore } from '../../../../lib/secrets/store.ts';
import { httpEvent } from '../../../helpers/lambda.ts';

const REPORTING = 'reporting-token-000000000000000000000000';
const BOT = 'deploy-bot-token-00000000000000000000000';
const LEGACY = 'legacy-token-000000000000000000000000000';

const SECRET = {
  callers: [
    { id: 'reporting', token: REPORTING, scopes: ['jobs:read'] },
    { id: 'deploy-bot', token: BOT, scopes: ['actions:deploy'], notAfter: '2027-01-31T00:00:00Z' },
  ],
  callerTokens: [LEGACY],
};

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const event = httpEvent('jobs-list.json');

/** A source the test can break, counting fetches. */
function breakableSource() {
  let broken = false;
  let fetches = 0;
  const source: SecretSource = {
    description: 'test source',
    fetchText: async () => {
      fetches++;
      if (broken) throw new Error('Secrets Manager unavailable');
      return JSON.stringify(SECRET);
    },
  };
  return {
    source,
    fetches: () => fetches,
    break: () => {
      broken = true;
    },
    mend: () => {
      broken = false;
    },
  };
}

function setup(start = Date.parse('2026-06-01T00:00:00Z')) {
  let now = start;
  const source = breakableSource();
  const ttlMs = 300_000;
  const maxStaleMs = 300_000;
  const store = new SecretStore(source.source, { ttlMs, now: () => now });
  const identify = secretCallers({
    load: () => store.getFetched(),
    maxAgeMs: ttlMs + maxStaleMs,
    retryInMs: () => store.retryInMs(),
    now: () => now,
  });
  return {
    identify: (token: string) => identify(event, bearer(token)),
    source,
    advance: (ms: number) => {
      now += ms;
    },
    setNow: (ms: number) => {
      now = ms;
    },
  };
}

describe('the secret callers', () => {
  it('finds a named caller by its token, with its scopes', async () => {
    const { identify } = setup();
    expect(await identify(REPORTING)).toMatchObject({ id: 'reporting', scopes: ['jobs:read'] });
    expect(await identify(BOT)).toMatchObject({ id: 'deploy-bot', scopes: ['actions:deploy'] });
  });

  it('takes each token of callerTokens as a caller with scope *, named by its place', async () => {
    const { identify } = setup();
    expect(await identify(LEGACY)).toMatchObject({ id: 'callerTokens.0', scopes: ['*'] });
  });

  it('refuses an unknown token and one past its notAfter with 401, never naming the token', async () => {
    const { identify, setNow } = setup();
    await expect(identify(`${REPORTING}x`)).rejects.toBeInstanceOf(CallerAuthError);
    setNow(Date.parse('2027-01-31T00:00:00Z') - 1);
    expect((await identify(BOT)).id).toBe('deploy-bot');
    setNow(Date.parse('2027-01-31T00:00:00Z'));
    const refused = (await identify(BOT).catch((error: unknown) => error)) as Error;
    expect(refused).toBeInstanceOf(CallerAuthError);
    expect(JSON.stringify({ ...refused, message: refused.message })).not.toContain(BOT);
  });

  it('does not fetch the secret for a wrong token', async () => {
    const { identify, source } = setup();
    await identify(REPORTING);
    for (let i = 0; i < 5; i++) await identify('wrong').catch(() => {});
    expect(source.fetches()).toBe(1);
  });

  it('keeps a stale secret for callers only until TTL + the bound, then refuses with 503 and Retry-After', async () => {
    const { identify, source, advance } = setup();
    await identify(REPORTING);
    source.break();
    // Past its TTL, fetches fail: the last good secret keeps saying who the callers are...
    advance(300_001);
    expect((await identify(REPORTING)).id).toBe('reporting');
    advance(299_000);
    expect((await identify(REPORTING)).id).toBe('reporting');
    // ...until it is older than TTL + CALLERS_MAX_STALE_SECONDS.
    advance(2_000);
    const refused = await identify(REPORTING).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(CallersUnavailableError);
    expect((refused as CallersUnavailableError).status).toBe(503);
    expect(Number((refused as CallersUnavailableError).headers['Retry-After'])).toBeGreaterThan(0);
    // Once the secret can be read again, callers are checked against the fresh copy.
    source.mend();
    advance(60_000);
    expect((await identify(REPORTING)).id).toBe('reporting');
  });

  it('finds the matching digest among many, whole tokens only', () => {
    const digests = ['a', 'abc', 'b'].map((t) => createHash('sha256').update(t).digest());
    expect(tokenIndex('abc', digests)).toBe(1);
    expect(tokenIndex('ab', digests)).toBe(-1);
    expect(tokenIndex('abcd', digests)).toBe(-1);
    expect(tokenIndex('abc', [])).toBe(-1);
  });
});

describe('callers given by their token digest', () => {
  const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
  const identifyIn = (document: object, now = Date.parse('2026-06-01T00:00:00Z')) => {
    const secret = parseSecret(JSON.stringify(document));
    const identify = secretCallers({
      load: async () => ({ value: secret, fetchedAt: now }),
      maxAgeMs: 600_000,
      retryInMs: () => 0,
      now: () => now,
    });
    return (token: string) => identify(event, bearer(token));
  };

  it('finds a caller that holds only tokenSha256 (either case) by its token', async () => {
    const identify = identifyIn({
      callers: [
        { id: 'reporting', tokenSha256: sha256(REPORTING), scopes: ['jobs:read'] },
        { id: 'deploy-bot', tokenSha256: sha256(BOT).toUpperCase(), scopes: ['actions:deploy'] },
      ],
    });
    expect(await identify(REPORTING)).toMatchObject({ id: 'reporting', scopes: ['jobs:read'] });
    expect(await identify(BOT)).toMatchObject({ id: 'deploy-bot', scopes: ['actions:deploy'] });
    // The digest itself is not a token.
    await expect(identify(sha256(REPORTING))).rejects.toBeInstanceOf(CallerAuthError);
  });

  it('wants token or tokenSha256, one of them, and a digest of 64 hex digits', () => {
    const refusal = (caller: object) => {
      try {
        parseSecret(JSON.stringify({ callers: [caller] }));
      } catch (error) {
        return (error as Error).message;
      }
      return '';
    };
    const base = { id: 'r', scopes: ['jobs:read'] };
    expect(refusal(base)).toContain('callers.0.token: expected either token or tokenSha256');
    expect(refusal({ ...base, token: REPORTING, tokenSha256: sha256(REPORTING) })).toContain(
      'callers.0.token: expected either token or tokenSha256',
    );
    expect(refusal({ ...base, tokenSha256: 'abc' })).toContain(
      'callers.0.tokenSha256: expected the hex SHA-256 of a token',
    );
    const message = refusal({ ...base, token: REPORTING, tokenSha256: sha256(REPORTING) });
    expect(message).not.toContain(REPORTING);
    expect(message).not.toContain(sha256(REPORTING));
  });

  it('rotates a token with no gap and no new name: one id, two entries, the old one ending', async () => {
    const swap = Date.parse('2026-06-02T00:00:00Z');
    const document = {
      callers: [
        {
          id: 'reporting',
          tokenSha256: sha256(REPORTING),
          scopes: ['jobs:read'],
          notAfter: new Date(swap).toISOString(),
        },
        { id: 'reporting', tokenSha256: sha256(BOT), scopes: ['jobs:read'] },
      ],
    };
    const beforeSwap = identifyIn(document, swap - 1);
    expect(await beforeSwap(REPORTING)).toMatchObject({ id: 'reporting', scopes: ['jobs:read'] });
    expect(await beforeSwap(BOT)).toMatchObject({ id: 'reporting', scopes: ['jobs:read'] });
    const afterSwap = identifyIn(document, swap);
    await expect(afterSwap(REPORTING)).rejects.toBeInstanceOf(CallerAuthError);
    expect((await afterSwap(BOT)).id).toBe('reporting');
  });

  it('refuses two entries of one id that differ in more than their token and end, and a token given twice', () => {
    const refusal = (callers: object[]) => {
      try {
        parseSecret(JSON.stringify({ callers }));
      } catch (error) {
        return (error as Error).message;
      }
      return '';
    };
    expect(
      refusal([
        { id: 'r', token: REPORTING, scopes: ['jobs:read'] },
        { id: 'r', tokenSha256: sha256(BOT), scopes: ['*'] },
      ]),
    ).toContain('callers.1.id: duplicate caller id with other scopes');
    // The same scopes in another order are the same scopes.
    expect(
      refusal([
        { id: 'r', token: REPORTING, scopes: ['jobs:read', 'jobs:stop'] },
        { id: 'r', tokenSha256: sha256(BOT), scopes: ['jobs:stop', 'jobs:read'] },
      ]),
    ).toBe('');
    // A token and the digest of the same token are one token.
    expect(
      refusal([
        { id: 'a', token: REPORTING, scopes: ['jobs:read'] },
        { id: 'b', tokenSha256: sha256(REPORTING), scopes: ['jobs:read'] },
      ]),
    ).toContain('callers.1.tokenSha256: duplicate token');
  });
});

describe('scopes', () => {
  it('grant a route by its own scope, its area wildcard, or *', () => {
    expect(grants(['jobs:read'], 'jobs:read')).toBe(true);
    expect(grants(['jobs:read'], 'jobs:cancel')).toBe(false);
    expect(grants(['*'], 'jobs:stop')).toBe(true);
    expect(grants(['actions:echo'], scopeOfRequest('actions:{name}', { name: 'echo' }))).toBe(true);
    expect(grants(['actions:echo'], scopeOfRequest('actions:{name}', { name: 'hello' }))).toBe(
      false,
    );
    expect(grants(['actions:*'], scopeOfRequest('actions:{name}', { name: 'hello' }))).toBe(true);
    expect(grants(['actions:*'], scopeOfRequest('triggers:{name}', { name: 'nightly' }))).toBe(
      false,
    );
    expect(grants(['catalogue:*'], 'catalogue:maps')).toBe(true);
    expect(grants(['catalogue:tts'], 'catalogue:maps')).toBe(false);
    expect(scopesGranting('jobs:read')).toEqual(['jobs:read', '*']);
    expect(scopesGranting('catalogue:maps')).toEqual(['catalogue:maps', 'catalogue:*', '*']);
  });
});

describe('JWT callers (claims as API Gateway passes them)', () => {
  const ISSUER = 'https://issuer.example.com';
  const withClaims = (claims: Record<string, unknown> | undefined) => {
    const e = httpEvent('jobs-list.json');
    (e.requestContext as unknown as Record<string, unknown>).authorizer = claims
      ? { jwt: { claims, scopes: null } }
      : undefined;
    return e;
  };
  const identify = jwtCallers(ISSUER);

  it("reads the caller's id from sub, else client_id, and the scopes from scope", async () => {
    expect(
      await identify(
        withClaims({ iss: ISSUER, sub: 'reporting', scope: 'jobs:read jobs:stop' }),
        {},
      ),
    ).toEqual({ id: 'reporting', scopes: ['jobs:read', 'jobs:stop'] });
    expect(
      await identify(withClaims({ iss: ISSUER, client_id: '4bcd1', scp: '[actions:echo]' }), {}),
    ).toEqual({ id: '4bcd1', scopes: ['actions:echo'] });
    expect(await identify(withClaims({ iss: ISSUER, sub: 'x' }), {})).toEqual({
      id: 'x',
      scopes: [],
    });
  });

  it("drops a JWT's * scope unless the stage allows it, keeping the others", async () => {
    const claims = { iss: ISSUER, sub: 'admin', scope: '* jobs:read' };
    expect(await identify(withClaims(claims), {})).toEqual({ id: 'admin', scopes: ['jobs:read'] });
    expect(await identify(withClaims({ ...claims, scp: '[*]', scope: undefined }), {})).toEqual({
      id: 'admin',
      scopes: [],
    });
    const allowing = jwtCallers(ISSUER, { allowStarScope: true });
    expect(await allowing(withClaims(claims), {})).toEqual({
      id: 'admin',
      scopes: ['*', 'jobs:read'],
    });
  });

  it('refuses no claims, another issuer, or no usable id with 401', async () => {
    for (const claims of [
      undefined,
      { iss: 'https://other.example.com', sub: 'a', scope: '*' },
      { iss: ISSUER, scope: '*' },
      { iss: ISSUER, sub: 'has space', scope: '*' },
    ]) {
      await expect(identify(withClaims(claims), {})).rejects.toBeInstanceOf(CallerAuthError);
    }
  });
});
