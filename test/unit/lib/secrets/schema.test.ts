/**
 * The secret's rules that go beyond shapes: webhook secrets (long enough, each webhook's own,
 * several during a rotation), the account plan kept with the callers, and a token held by one
 * caller only, whichever list holds it. Every refusal names the field and never the value.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SecretError } from '../../../../lib/core/errors.ts';
import { CAPABILITY_FIELDS, webhookSecretsOf } from '../../../../lib/secrets/schema.ts';
import { parseSecret } from '../../../../lib/secrets/store.ts';

const whsec = (bytes: number, fill = 'k') =>
  `whsec_${Buffer.alloc(bytes, fill).toString('base64')}`;

/** The message a document is refused with, checked to hold none of these values. */
function refusal(document: unknown, ...values: string[]): string {
  let message = '';
  try {
    parseSecret(JSON.stringify(document));
  } catch (error) {
    expect(error).toBeInstanceOf(SecretError);
    message = (error as Error).message;
  }
  expect(message, 'the document was accepted').not.toBe('');
  for (const value of values.filter((text) => text.length > 'whsec_'.length)) {
    expect(message).not.toContain(value);
    expect(message).not.toContain(value.slice('whsec_'.length));
  }
  return message;
}

describe('webhook secrets', () => {
  it('refuses a secret shorter than 24 bytes decoded, naming the field', () => {
    for (const bytes of [1, 23]) {
      const secret = whsec(bytes);
      expect(refusal({ webhooks: { demo: { secret, action: 'hello' } } }, secret)).toContain(
        'webhooks.demo.secret: expected a secret of at least 24 bytes (decoded)',
      );
    }
    for (const secret of ['whsec_AA==', 'whsec_']) {
      expect(refusal({ webhooks: { demo: { secret, action: 'hello' } } })).toContain(
        'webhooks.demo.secret: expected a secret of at least 24 bytes',
      );
    }
    const secret = whsec(24);
    expect(
      parseSecret(JSON.stringify({ webhooks: { demo: { secret, action: 'hello' } } })),
    ).toBeTruthy();
  });

  it('refuses what is not whsec_ and padded base64', () => {
    for (const secret of [`${whsec(30)}x`, whsec(30).replace('whsec_', ''), 'whsec_A=B=']) {
      expect(refusal({ webhooks: { demo: { secret, action: 'hello' } } }, secret)).toContain(
        'webhooks.demo.secret: expected a whsec_<base64> secret',
      );
    }
  });

  it('takes secrets, a list, for a rotation: one to three of them', () => {
    const secrets = [whsec(32, 'a'), whsec(32, 'b')];
    const parsed = parseSecret(
      JSON.stringify({ webhooks: { demo: { secrets, action: 'hello' } } }),
    );
    expect(webhookSecretsOf(parsed.webhooks!.demo!)).toEqual(secrets);
    expect(refusal({ webhooks: { demo: { secrets: [], action: 'hello' } } })).toContain(
      'webhooks.demo.secrets: expected at least one secret',
    );
    const four = ['a', 'b', 'c', 'd'].map((fill) => whsec(32, fill));
    expect(refusal({ webhooks: { demo: { secrets: four, action: 'hello' } } })).toContain(
      'webhooks.demo.secrets: expected at most 3 secrets',
    );
    expect(
      refusal({ webhooks: { demo: { secrets: [whsec(32), whsec(8, 'z')], action: 'hello' } } }),
    ).toContain('webhooks.demo.secrets.1: expected a secret of at least 24 bytes');
  });

  it('wants secret or secrets, not both and not neither', () => {
    const message = 'webhooks.demo.secret: expected either secret or secrets';
    expect(refusal({ webhooks: { demo: { action: 'hello' } } })).toContain(message);
    expect(
      refusal({ webhooks: { demo: { secret: whsec(32), secrets: [whsec(32)], action: 'hello' } } }),
    ).toContain(message);
  });

  it('refuses a secret two webhooks share, naming the second one and the first webhook', () => {
    const shared = whsec(32, 's');
    const message = refusal(
      {
        webhooks: {
          first: { secret: shared, action: 'hello' },
          second: { secrets: [whsec(32, 't'), shared], action: 'echo' },
        },
      },
      shared,
    );
    expect(message).toContain(
      'webhooks.second.secrets.1: the same secret as the webhook "first": each webhook needs its own',
    );
    // Written differently (no padding difference is possible; compared decoded all the same).
    const alone = parseSecret(
      JSON.stringify({ webhooks: { only: { secrets: [shared, shared], action: 'hello' } } }),
    );
    expect(webhookSecretsOf(alone.webhooks!.only!)).toHaveLength(2);
  });
});

describe('the capabilities', () => {
  it('keeps the account plan with the callers: the callers capability holds it', () => {
    expect(CAPABILITY_FIELDS.callers).toContain('accountPlan');
    const text = JSON.stringify({ accountPlan: { dayQuotaRequest: 10 } });
    expect(() => parseSecret(text, 'the signing secret', { fields: ['iam', 'apiKey'] })).toThrow(
      'accountPlan: not allowed here',
    );
    expect(
      parseSecret(text, 'the callers secret', { fields: CAPABILITY_FIELDS.callers }).accountPlan,
    ).toEqual({ dayQuotaRequest: 10 });
  });
});

describe('callers and callerTokens together', () => {
  const TOKEN = 'a-token-of-at-least-32-characters-long-0001';
  const digest = createHash('sha256').update(TOKEN).digest('hex');

  it('refuses a token held twice, by callers and callerTokens, or by callerTokens alone, naming both fields', () => {
    const named = { id: 'reporting', token: TOKEN, scopes: ['jobs:read'] };
    expect(refusal({ callers: [named], callerTokens: [TOKEN] }, TOKEN)).toContain(
      'callerTokens.0: duplicate token (callers.0)',
    );
    // A digest is its token.
    const byDigest = { id: 'reporting', tokenSha256: digest.toUpperCase(), scopes: ['jobs:read'] };
    expect(refusal({ callers: [byDigest], callerTokens: [TOKEN] }, TOKEN, digest)).toContain(
      'callerTokens.0: duplicate token (callers.0)',
    );
    expect(refusal({ callerTokens: [`${TOKEN}x`, TOKEN, TOKEN] }, TOKEN)).toContain(
      'callerTokens.2: duplicate token (callerTokens.1)',
    );
    expect(refusal({ callers: [named, { ...named, id: 'other' }] }, TOKEN)).toContain(
      'callers.1.token: duplicate token (callers.0)',
    );
  });

  it('keeps the ids callerTokens.<n> for the deprecated list', () => {
    const message = refusal(
      { callers: [{ id: 'callerTokens.0', token: TOKEN, scopes: ['*'] }] },
      TOKEN,
    );
    expect(message).toContain('callers.0.id: callerTokens.<n> is reserved');
    expect(
      parseSecret(
        JSON.stringify({ callers: [{ id: 'callerTokens', token: TOKEN, scopes: ['*'] }] }),
      ).callers,
    ).toHaveLength(1);
  });
});
