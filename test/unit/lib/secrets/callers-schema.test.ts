/**
 * The callers' part of the secret: usage plans (a caller's `plan` and the `accountPlan` beside
 * `callers`), every field taken, an empty plan, and every malformed one refused naming the field
 * and never the value.
 */
import { describe, expect, it } from 'vitest';
import { planSchema } from '../../../../lib/secrets/callers-schema.ts';
import { parseSecret } from '../../../../lib/secrets/store.ts';

const TOKEN = 'a-caller-token-of-at-least-32-characters';

function callerWith(plan: unknown, index = 0) {
  return { id: `caller-${index}`, token: `${TOKEN}-${index}`, scopes: ['*'], plan };
}

/** The message of the refusal of a secret, or a failure when it is accepted. */
function refusalOf(secret: unknown): string {
  try {
    parseSecret(JSON.stringify(secret));
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('accepted');
}

describe('a usage plan in the secret', () => {
  it('takes every field of a plan, on a caller and beside the callers', () => {
    const secret = parseSecret(
      JSON.stringify({
        callers: [
          callerWith({ rateRps: 5, burst: 10, dayQuotaRequest: 10000, monthQuotaRequest: 200000 }),
          callerWith({ dayQuotaCharacters: { translate: 100000, tts: 20000 } }, 1),
          { id: 'free', token: `${TOKEN}-free`, scopes: ['jobs:read'] },
        ],
        accountPlan: { monthQuotaRequest: 1000000, monthQuotaCharacters: { translate: 5000000 } },
      }),
    );
    expect(secret.callers?.[0]?.plan).toEqual({
      rateRps: 5,
      burst: 10,
      dayQuotaRequest: 10000,
      monthQuotaRequest: 200000,
    });
    expect(secret.callers?.[1]?.plan?.dayQuotaCharacters).toEqual({
      translate: 100000,
      tts: 20000,
    });
    expect(secret.callers?.[2]?.plan).toBeUndefined();
    expect(secret.accountPlan?.monthQuotaCharacters?.translate).toBe(5000000);
  });

  it('takes an empty plan: usage counted, nothing held', () => {
    expect(planSchema.parse({})).toEqual({});
  });

  it.each([
    ['a negative quota', { dayQuotaRequest: -5 }, 'callers.2.plan.dayQuotaRequest'],
    ['a zero quota', { monthQuotaRequest: 0 }, 'callers.2.plan.monthQuotaRequest'],
    ['a fractional burst', { rateRps: 3, burst: 2.5 }, 'callers.2.plan.burst'],
    ['a fractional rate', { rateRps: 0.5 }, 'callers.2.plan.rateRps'],
    ['a rate given as text', { rateRps: '5' }, 'callers.2.plan.rateRps'],
    ['a burst without a rate', { burst: 4 }, 'callers.2.plan.burst: burst needs rateRps'],
    [
      'an unknown member',
      { rateRps: 1, dailyQuota: 7 },
      'callers.2.plan: unknown member(s): dailyQuota',
    ],
    [
      'characters of an API that is not billed by them',
      { dayQuotaCharacters: { maps: 10 } },
      'callers.2.plan.dayQuotaCharacters: unknown member(s): maps',
    ],
    [
      'a negative character quota',
      { monthQuotaCharacters: { tts: -1 } },
      'callers.2.plan.monthQuotaCharacters.tts',
    ],
    ['a plan that is not an object', 12, 'callers.2.plan: expected an object'],
  ])('refuses %s, naming the field and never the value', (_case, plan, field) => {
    const message = refusalOf({
      callers: [callerWith(undefined, 0), callerWith({}, 1), callerWith(plan, 2)],
    });
    expect(message).toContain(field);
    // The value never appears (the numbers of the cases are not in any field name).
    for (const value of Object.values(typeof plan === 'object' ? plan : { plan })) {
      if (typeof value === 'number') expect(message).not.toContain(String(value));
    }
  });

  it('refuses a malformed account plan, naming it', () => {
    expect(refusalOf({ accountPlan: { rateRps: -3 } })).toContain('accountPlan.rateRps');
    expect(refusalOf({ accountPlan: { monthQuotaCharacters: { stt: 9 } } })).toContain(
      'accountPlan.monthQuotaCharacters: unknown member(s): stt',
    );
  });
});
