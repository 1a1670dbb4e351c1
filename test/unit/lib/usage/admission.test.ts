/**
 * A request's admission over the memory store, for what the store rules leave out: no call
 * without a plan, the caller before the account, spread subjects, the metrics, a store that
 * fails half way or throughout (rates from memory, quotas by the policy).
 */
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../../lib/core/log.ts';
import { admit } from '../../../../lib/usage/admission.ts';
import { OUTAGE_WHILE_MS, UsageGate } from '../../../../lib/usage/gate.ts';
import { usageReport } from '../../../../lib/usage/report.ts';
import { memoryUsageStore } from '../../../../lib/usage/store.ts';
import { ONE_REQUEST } from '../../../../lib/usage/units.ts';
import { recorder, spiedStore } from '../../../helpers/usage-spies.ts';
import { admitted, refusal, T0 } from '../../../helpers/usage-store-rules.ts';

const lines: string[] = [];
/** Where a take starts among a spread subject's shards: the first, unless a test moves it. */
let random = () => 0;
const log = createLogger({}, (line) => lines.push(line));

describe('admit', () => {
  it('costs a caller without a plan nothing while there is no account plan', async () => {
    const { store, calls } = spiedStore();
    const gate = new UsageGate({ store, onStoreFailure: 'closed', log, now: () => T0 });
    const admission = admitted(
      await admit(gate, {
        callerId: 'free',
        plans: { plan: undefined, accountPlan: undefined },
        units: ONE_REQUEST,
      }),
    );
    expect(admission.headers).toEqual({});
    await admission.giveBack();
    expect(calls).toEqual([]);
  });

  it('judges the caller first, and the account only for what the caller admits', async () => {
    const { store, calls } = spiedStore();
    const gate = new UsageGate({
      store,
      onStoreFailure: 'closed',
      log,
      now: () => T0,
      random: () => random(),
    });
    // A caller held to a rate of 100 a second keeps one item; the account is spread.
    const plans = {
      plan: { rateRps: 100, dayQuotaRequest: 1 },
      accountPlan: { dayQuotaRequest: 100 },
    };
    admitted(await admit(gate, { callerId: 'a', plans, units: ONE_REQUEST }));
    refusal(await admit(gate, { callerId: 'a', plans, units: ONE_REQUEST }));
    expect(calls).toEqual(['take caller#a', 'take account#0', 'take caller#a']);
    // An account plan alone: one record, the next shard of the account.
    calls.length = 0;
    random = () => 0.2;
    admitted(
      await admit(gate, {
        callerId: 'b',
        plans: { plan: undefined, accountPlan: plans.accountPlan },
        units: ONE_REQUEST,
      }),
    );
    expect(calls).toEqual(['take account#1']);
  });

  it('spreads a plan without a rate over its shards, and moves on when a share is spent', async () => {
    const { store, calls } = spiedStore();
    const gate = new UsageGate({
      store,
      onStoreFailure: 'closed',
      log,
      now: () => T0,
      random: () => random(),
    });
    const plans = { plan: { dayQuotaRequest: 10 }, accountPlan: undefined };
    // Shares of 2, 2, then 1 for each of the six others: exactly 10 in all.
    for (let i = 0; i < 10; i++)
      admitted(await admit(gate, { callerId: 'c', plans, units: ONE_REQUEST }));
    const error = refusal(await admit(gate, { callerId: 'c', plans, units: ONE_REQUEST }));
    expect(error).toMatchObject({ status: 429, code: '400' });
    expect(new Set(calls)).toEqual(
      new Set(Array.from({ length: 8 }, (_, i) => `take caller#c#${i}`)),
    );
    expect((await usageReport(gate, 'c', plans)).caller.day).toMatchObject({
      requests: 10,
      remaining: { requests: 0 },
    });
  });

  it('counts characters per caller, refusals per plan and limit, and the account month share', async () => {
    const gate = new UsageGate({
      store: memoryUsageStore(),
      onStoreFailure: 'closed',
      log,
      now: () => T0,
    });
    const { metrics, counted } = recorder();
    const plans = {
      plan: { dayQuotaCharacters: { translate: 100 } },
      accountPlan: { monthQuotaRequest: 80, monthQuotaCharacters: { translate: 1000 } },
    };
    const units = { requests: 1, characters: { api: 'translate' as const, count: 60 } };
    admitted(await admit(gate, { callerId: 'chatbot', plans, units, metrics }));
    refusal(await admit(gate, { callerId: 'chatbot', plans, units, metrics }));
    expect(counted).toEqual([
      ['CallerCharacters', { Caller: 'chatbot', Api: 'translate' }, 60],
      // One request of the shard's 10 (of 80 on 8 shards) is 10 %, 60 characters of 1000 is
      // 6 %: the larger.
      ['AccountMonthQuotaUsedPercent', {}, 10],
      ['CallerCharacters', { Caller: 'chatbot', Api: 'translate' }, 60],
      ['UsageRefusals', { Plan: 'caller', Limit: 'dayQuotaCharacters.translate' }, undefined],
    ]);
  });

  it("holds a caller to its own rate while the account's plan refuses: its quota back, its token kept", async () => {
    const { store, calls } = spiedStore();
    const gate = new UsageGate({ store, onStoreFailure: 'open', log, now: () => T0 });
    const plans = {
      plan: { rateRps: 1, burst: 1, dayQuotaRequest: 5 },
      accountPlan: { dayQuotaRequest: 1 },
    };
    // Another caller spends the account's day.
    admitted(
      await admit(gate, {
        callerId: 'b',
        plans: { ...plans, plan: undefined },
        units: ONE_REQUEST,
      }),
    );
    const codes: string[] = [];
    for (let i = 0; i < 5; i++) {
      codes.push(refusal(await admit(gate, { callerId: 'a', plans, units: ONE_REQUEST })).code);
    }
    // The first is the account's refusal; the caller's own rate refuses the rest.
    expect(codes).toEqual(['400', '420', '420', '420', '420']);
    // Its quota units went back: the day counts none of the refused requests.
    const usage = await usageReport(gate, 'a', plans);
    expect(usage.caller.day.requests).toBe(0);
    expect(calls.filter((call) => call === 'take caller#a').length).toBeLessThanOrEqual(5);
  });

  it("fails a throttled item's subject alone: no outage, the other callers still counted", async () => {
    const hot = Object.assign(new Error('Throughput exceeds the current capacity'), {
      name: 'ProvisionedThroughputExceededException',
    });
    const { store, calls } = spiedStore(
      (method, key) => method === 'take' && key === 'caller#a' && hot,
    );
    const gate = new UsageGate({ store, onStoreFailure: 'open', log, now: () => T0 });
    const { metrics, counted } = recorder();
    const plans = { plan: { rateRps: 1, burst: 1, dayQuotaRequest: 5 }, accountPlan: undefined };
    // The hot caller: held to its rate from memory, by the open policy.
    admitted(await admit(gate, { callerId: 'a', plans, units: ONE_REQUEST, metrics }));
    expect(refusal(await admit(gate, { callerId: 'a', plans, units: ONE_REQUEST })).code).toBe(
      '420',
    );
    expect(counted).toEqual([['UsageStoreFailures', { Policy: 'open' }, undefined]]);
    // Another caller's next request still asks the store, and is counted.
    calls.length = 0;
    admitted(await admit(gate, { callerId: 'c', plans, units: ONE_REQUEST }));
    expect(calls).toEqual(['take caller#c']);
    expect((await usageReport(gate, 'c', plans)).caller.day.requests).toBe(1);
  });

  it('gives the caller back what it took when the store fails at the account, closed', async () => {
    const { store } = spiedStore((method, key) => method === 'take' && key.startsWith('account'));
    const gate = new UsageGate({ store, onStoreFailure: 'closed', log, now: () => T0 });
    const { metrics, counted } = recorder();
    const plans = { plan: { dayQuotaRequest: 5 }, accountPlan: { dayQuotaRequest: 5 } };
    const error = refusal(await admit(gate, { callerId: 'a', plans, units: ONE_REQUEST, metrics }));
    expect(error).toMatchObject({ status: 503, code: '500' });
    expect(counted).toEqual([['UsageStoreFailures', { Policy: 'closed' }, undefined]]);
    expect(
      (await usageReport(gate, 'a', { ...plans, accountPlan: undefined })).caller.day.requests,
    ).toBe(0);
  });

  it('keeps what the caller took when the store fails at the account, open', async () => {
    const { store } = spiedStore((method, key) => method === 'take' && key.startsWith('account'));
    const gate = new UsageGate({ store, onStoreFailure: 'open', log, now: () => T0 });
    const plans = { plan: { dayQuotaRequest: 5 }, accountPlan: { monthQuotaRequest: 9 } };
    const admission = admitted(await admit(gate, { callerId: 'a', plans, units: ONE_REQUEST }));
    expect(admission.headers).toEqual({
      'RateLimit-Policy': `"caller-day";q=5;w=86400, "account-month";q=9;w=${30 * 86400}`,
    });
    expect(
      (await usageReport(gate, 'a', { ...plans, accountPlan: undefined })).caller.day.requests,
    ).toBe(1);
  });

  it('leaves units counted when they cannot be given back, with a warning', async () => {
    const { store } = spiedStore((method) => method === 'giveBack');
    const gate = new UsageGate({ store, onStoreFailure: 'closed', log, now: () => T0 });
    lines.length = 0;
    const plans = { plan: { dayQuotaRequest: 5 }, accountPlan: undefined };
    const admission = admitted(await admit(gate, { callerId: 'a', plans, units: ONE_REQUEST }));
    await admission.giveBack();
    expect(lines.join('\n')).toContain('usage not given back');
    expect(lines.join('\n')).not.toContain('"stack"');
    expect((await usageReport(gate, 'a', plans)).caller.day.requests).toBe(1);
  });

  it("charges more units to the caller's plan alone, never refused, and answers the fields after them", async () => {
    const { store } = spiedStore();
    const gate = new UsageGate({ store, onStoreFailure: 'closed', log, now: () => T0 });
    const plans = {
      plan: { rateRps: 10, burst: 10, dayQuotaRequest: 20 },
      accountPlan: { dayQuotaRequest: 1000 },
    };
    const admission = admitted(await admit(gate, { callerId: 'a', plans, units: ONE_REQUEST }));
    // 25 more: past the caller's day quota, counted all the same.
    const fields = await admission.charge(25);
    expect(fields.RateLimit).toMatch(
      /^"caller-rate";r=9;t=\d+, "caller-day";r=0;t=\d+, "account-day"/,
    );
    const usage = await usageReport(gate, 'a', plans);
    expect(usage.caller.day.requests).toBe(26);
    expect(usage.account?.day.requests).toBe(1);
    // The bucket is the request's alone: nine more fit now, the day's quota none.
    expect(refusal(await admit(gate, { callerId: 'a', plans, units: ONE_REQUEST })).code).toBe(
      '400',
    );
  });

  describe('while the store fails throughout', () => {
    const down = () => spiedStore(() => true).store;
    const gateOver = (policy: 'open' | 'closed') =>
      new UsageGate({ store: down(), onStoreFailure: policy, log, now: () => T0 });
    const ask = (gate: UsageGate, plans: Parameters<typeof admit>[1]['plans'], id = 'a') =>
      admit(gate, { callerId: id, plans, units: ONE_REQUEST });

    it.each(['open', 'closed'] as const)(
      'holds each caller to its rate from memory, %s: an outage never lifts a rate',
      async (policy) => {
        const gate = gateOver(policy);
        const plans = { plan: { rateRps: 2, burst: 3 }, accountPlan: undefined };
        for (let i = 0; i < 3; i++) admitted(await ask(gate, plans));
        const error = refusal(await ask(gate, plans));
        expect(error).toMatchObject({ status: 429, code: '420' });
        expect(error.headers['Retry-After']).toBe('1');
        // Another caller has a bucket of its own.
        admitted(await ask(gate, plans, 'b'));
      },
    );

    it('differs between the policies only on quotas: open admits uncounted, closed refuses 503', async () => {
      const plans = { plan: { rateRps: 100, dayQuotaRequest: 1 }, accountPlan: undefined };
      const open = gateOver('open');
      const { metrics, counted } = recorder();
      const first = admitted(
        await admit(open, { callerId: 'a', plans, units: ONE_REQUEST, metrics }),
      );
      // The policies are stated; their state is not known.
      expect(first.headers).toEqual({
        'RateLimit-Policy': '"caller-rate";q=100;w=1;pgw-burst=100, "caller-day";q=1;w=86400',
      });
      expect(counted).toEqual([['UsageStoreFailures', { Policy: 'open' }, undefined]]);
      admitted(await ask(open, plans));
      const closed = gateOver('closed');
      expect(refusal(await ask(closed, plans))).toMatchObject({ status: 503, code: '500' });
      // A plan of a rate alone: the same under either policy.
      admitted(await ask(closed, { plan: { rateRps: 1 }, accountPlan: undefined }));
      expect(lines.join('\n')).toContain('rates held from memory, quotas closed');
    });

    it('holds the account to its rate from memory too, and asks the failing store once, then leaves it alone for the while', async () => {
      const { store, calls } = spiedStore(() => true);
      const gate = new UsageGate({ store, onStoreFailure: 'open', log, now: () => T0, random });
      const plans = { plan: { rateRps: 50 }, accountPlan: { rateRps: 2, burst: 2 } };
      admitted(await ask(gate, plans, 'a'));
      admitted(await ask(gate, plans, 'b'));
      expect(refusal(await ask(gate, plans, 'c'))).toMatchObject({ code: '420' });
      expect(calls).toEqual(['take caller#a']);
    });
  });

  describe('after the store failed', () => {
    it(`leaves it alone for ${OUTAGE_WHILE_MS / 1000} s, then asks it with one request at a time until it answers`, async () => {
      let failing = true;
      const { store, calls } = spiedStore(() => failing);
      const clock = { now: T0 };
      const gate = new UsageGate({ store, onStoreFailure: 'open', log, now: () => clock.now });
      // A rate of 100 a second keeps the caller on one item.
      const plans = { plan: { rateRps: 100, dayQuotaRequest: 100 }, accountPlan: undefined };
      const { metrics, counted } = recorder();
      const ask = () => admit(gate, { callerId: 'a', plans, units: ONE_REQUEST, metrics });
      admitted(await ask());
      expect(calls).toEqual(['take caller#a']);
      // Within the while: decided from memory at once, the metric counted for each.
      clock.now = T0 + OUTAGE_WHILE_MS - 1;
      for (let i = 0; i < 5; i++) admitted(await ask());
      expect(calls).toHaveLength(1);
      expect(counted).toHaveLength(6);
      // The while is over, the store still fails: one request asks it, and the while starts again.
      clock.now = T0 + OUTAGE_WHILE_MS;
      await Promise.all([ask(), ask(), ask()]);
      expect(calls).toHaveLength(2);
      clock.now += OUTAGE_WHILE_MS - 1;
      admitted(await ask());
      expect(calls).toHaveLength(2);
      // It answers again: the request asking it is counted (the other, meanwhile, is decided
      // from memory), and the answer ends the outage: every request after asks it.
      failing = false;
      clock.now += 1;
      await Promise.all([ask(), ask()]);
      expect(calls).toHaveLength(3);
      admitted(await ask());
      admitted(await ask());
      expect(calls).toHaveLength(5);
      expect((await usageReport(gate, 'a', plans)).caller.day.requests).toBe(3);
    });
  });
});
