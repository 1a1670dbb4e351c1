/**
 * The rules every usage store keeps, through the usage gate, as one suite run against each
 * implementation (memory, DynamoDB on dynalite): quotas per UTC day and month, the token bucket,
 * characters per API, units given back, the account's plan over every caller (spread over its
 * shards), and what GET /usage reads.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { QuotaExceededError, RateLimitedError, type ServiceError } from '../../lib/core/errors.ts';
import { createLogger } from '../../lib/core/log.ts';
import type { PlanEntry } from '../../lib/secrets/callers-schema.ts';
import { type Admission, type Admitted, admit as admitWith } from '../../lib/usage/admission.ts';
import { UsageGate } from '../../lib/usage/gate.ts';
import { usageReport } from '../../lib/usage/report.ts';
import type { UsageStore } from '../../lib/usage/store.ts';
import { ONE_REQUEST, type Units } from '../../lib/usage/units.ts';

/** A clock the suite moves; the gate under test reads it. */
export interface UsageClock {
  now: number;
}

/** 2026-11-25T10:00:00Z: 14 hours before the day ends, 5 days and 14 hours before the month. */
export const T0 = Date.UTC(2026, 10, 25, 10, 0, 0);
const HOUR = 3_600_000;

export function admitted(admission: Admission): Admitted {
  if (!admission.admitted) {
    throw new Error(`refused: ${admission.error.code} ${String(admission.error.details)}`);
  }
  return admission;
}

export function refusal(admission: Admission): ServiceError {
  if (admission.admitted) throw new Error('admitted');
  return admission.error;
}

const translate = (count: number): Units => ({
  requests: 1,
  characters: { api: 'translate', count },
});
const tts = (count: number): Units => ({ requests: 1, characters: { api: 'tts', count } });

export function describeUsageStoreRules(
  name: string,
  clock: UsageClock,
  /** A fresh set of records; each call of the function it returns is another container. */
  create: () => Promise<() => UsageStore>,
): void {
  describe(`the usage store ${name}`, () => {
    let gate: UsageGate;
    const silent = createLogger({}, () => {});
    beforeEach(async () => {
      clock.now = T0;
      const container = await create();
      gate = new UsageGate({
        store: container(),
        onStoreFailure: 'closed',
        log: silent,
        now: () => clock.now,
      });
    });
    const admit = (plan: PlanEntry | undefined, units = ONE_REQUEST, callerId = 'reporting') =>
      admitWith(gate, { callerId, plans: { plan, accountPlan: undefined }, units });

    it('admits a day quota exactly, then refuses until the UTC day ends', async () => {
      const plan = { dayQuotaRequest: 3 };
      for (let i = 0; i < 3; i++) admitted(await admit(plan));
      const error = refusal(await admit(plan));
      expect(error).toBeInstanceOf(QuotaExceededError);
      expect(error).toMatchObject({ status: 429, code: '400', message: 'Quota Exceeded' });
      expect(error.details).toBe(
        "Over the caller plan's dayQuotaRequest; it resets with the window (Retry-After).",
      );
      expect(error.headers['Retry-After']).toBe(String(14 * 3600));
      expect(error.headers.RateLimit).toBe(`"caller-day";r=0;t=${14 * 3600}`);
      // Refused requests count nothing: the next day has all three again.
      clock.now = T0 + 14 * HOUR;
      for (let i = 0; i < 3; i++) admitted(await admit(plan));
      expect(refusal(await admit(plan)).code).toBe('400');
    });

    it('counts a month across its days, and starts afresh with the next month', async () => {
      const plan = { monthQuotaRequest: 2, dayQuotaRequest: 5 };
      admitted(await admit(plan));
      clock.now = T0 + 24 * HOUR;
      admitted(await admit(plan));
      clock.now = T0 + 48 * HOUR;
      const error = refusal(await admit(plan));
      expect(error).toMatchObject({ code: '400' });
      expect(String(error.details)).toContain('monthQuotaRequest');
      // 2026-11-27T10:00Z: the month ends in 3 days and 14 hours.
      expect(error.headers['Retry-After']).toBe(String((3 * 24 + 14) * 3600));
      clock.now = Date.UTC(2026, 11, 1, 0, 0, 0);
      admitted(await admit(plan));
    });

    it('holds a token bucket exactly: burst at once, then one per interval', async () => {
      const plan = { rateRps: 2, burst: 3 };
      for (let i = 0; i < 3; i++) admitted(await admit(plan));
      const error = refusal(await admit(plan));
      expect(error).toBeInstanceOf(RateLimitedError);
      expect(error).toMatchObject({ status: 429, code: '420', message: 'Rate Limited' });
      expect(error.details).toBe(
        "Over the caller plan's rateRps; retry after the Retry-After seconds.",
      );
      expect(error.headers['Retry-After']).toBe('1');
      expect(error.headers.RateLimit).toBe('"caller-rate";r=0;t=1');
      clock.now = T0 + 499;
      expect(refusal(await admit(plan)).code).toBe('420');
      clock.now = T0 + 500;
      admitted(await admit(plan));
      expect(refusal(await admit(plan)).code).toBe('420');
      // Idle for a long time: the bucket holds its burst, never more.
      clock.now = T0 + 60_000;
      for (let i = 0; i < 3; i++) admitted(await admit(plan));
      expect(refusal(await admit(plan)).code).toBe('420');
    });

    it('tells the remaining quota and bucket in the RateLimit fields', async () => {
      const plan = { rateRps: 5, burst: 10, dayQuotaRequest: 100 };
      const first = admitted(await admit(plan));
      expect(first.headers['RateLimit-Policy']).toBe(
        '"caller-rate";q=5;w=1;pgw-burst=10, "caller-day";q=100;w=86400',
      );
      expect(first.headers.RateLimit).toBe(
        `"caller-rate";r=9;t=1, "caller-day";r=99;t=${14 * 3600}`,
      );
    });

    it('counts characters per API: a translate quota holds translate only', async () => {
      const plan = { dayQuotaCharacters: { translate: 10 } };
      admitted(await admit(plan, translate(6)));
      const error = refusal(await admit(plan, translate(5)));
      expect(error).toMatchObject({ code: '400' });
      expect(String(error.details)).toContain('dayQuotaCharacters.translate');
      // What fits still fits; other APIs and plain requests are not held by it.
      const fits = admitted(await admit(plan, translate(4)));
      expect(fits.headers.RateLimit).toBe(`"caller-day-translate";r=0;t=${14 * 3600}`);
      expect(fits.headers['RateLimit-Policy']).toBe(
        '"caller-day-translate";q=10;w=86400;pgw-qu="characters"',
      );
      admitted(await admit(plan, tts(500)));
      const plain = admitted(await admit(plan));
      expect(plain.headers).toEqual({});
    });

    it('refuses a text larger than the whole quota', async () => {
      const error = refusal(await admit({ monthQuotaCharacters: { tts: 100 } }, tts(101)));
      expect(String(error.details)).toContain('monthQuotaCharacters.tts');
    });

    it('takes units back from a call that could not reach the platform', async () => {
      const plan = { rateRps: 1, burst: 1, dayQuotaRequest: 1, dayQuotaCharacters: { tts: 5 } };
      const first = admitted(await admit(plan, tts(5)));
      expect(refusal(await admit(plan, tts(1))).code).toBe('400');
      await first.giveBack();
      await first.giveBack(); // once only
      admitted(await admit(plan, tts(5)));
      expect(refusal(await admit(plan, tts(1))).code).toBe('400');
    });

    it('holds every caller to the account plan together, never naming the others', async () => {
      const accountPlan = { monthQuotaRequest: 2 };
      const plan = { dayQuotaRequest: 10 };
      const admitAs = (callerId: string) =>
        admitWith(gate, { callerId, plans: { plan, accountPlan }, units: ONE_REQUEST });
      const first = admitted(await admitAs('reporting'));
      expect(first.headers['RateLimit-Policy']).toBe(
        `"caller-day";q=10;w=86400, "account-month";q=2;w=${30 * 86400}`,
      );
      admitted(await admitAs('chatbot'));
      const error = refusal(await admitAs('reporting'));
      expect(error).toMatchObject({ code: '400' });
      expect(error.details).toBe(
        "Over the account plan's monthQuotaRequest; it resets with the window (Retry-After).",
      );
      expect(JSON.stringify(error.headers)).not.toContain('chatbot');
      // The caller's unit taken before the account refused was given back.
      const usage = await usageReport(gate, 'reporting', { plan, accountPlan });
      expect(usage.caller.day.requests).toBe(1);
      expect(usage.account?.month.requests).toBe(2);
      expect(usage.account?.month.remaining).toEqual({ requests: 0 });
    });

    it('reads a caller usage and the account usage for GET /usage', async () => {
      const plan = { dayQuotaRequest: 10, monthQuotaCharacters: { translate: 1000 } };
      const accountPlan = { monthQuotaRequest: 100 };
      await admitWith(gate, {
        callerId: 'chatbot',
        plans: { plan, accountPlan },
        units: translate(40),
      });
      await admitWith(gate, {
        callerId: 'chatbot',
        plans: { plan, accountPlan },
        units: ONE_REQUEST,
      });
      const usage = await usageReport(gate, 'chatbot', { plan, accountPlan });
      expect(usage.caller).toEqual({
        plan,
        counted: true,
        day: {
          window: '2026-11-25',
          requests: 2,
          characters: { translate: 40, tts: 0 },
          remaining: { requests: 8 },
          resetsAt: '2026-11-26T00:00:00.000Z',
        },
        month: {
          window: '2026-11',
          requests: 2,
          characters: { translate: 40, tts: 0 },
          remaining: { characters: { translate: 960, tts: undefined } },
          resetsAt: '2026-12-01T00:00:00.000Z',
        },
      });
      expect(usage.account?.month).toMatchObject({ requests: 2, remaining: { requests: 98 } });
      // A caller without a plan is not counted on its own.
      const free = await usageReport(gate, 'free', { plan: undefined, accountPlan: undefined });
      expect(free.caller).toMatchObject({ plan: null, counted: false, day: { requests: 0 } });
      expect(free.account).toBeUndefined();
    });
  });
}
