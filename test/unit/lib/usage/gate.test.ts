/**
 * The usage gate over the memory store, for what the store rules leave out: no call without a
 * plan, the metrics, counting unheld requests, a store that fails half way.
 */
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../../lib/core/log.js';
import { type MetricRecorder, UsageGate } from '../../../../lib/usage/gate.js';
import { usageReport } from '../../../../lib/usage/report.js';
import { memoryUsageStore, type UsageStore } from '../../../../lib/usage/store.js';
import { ONE_REQUEST } from '../../../../lib/usage/units.js';
import { admitted, refusal, T0 } from '../../../helpers/usage-store-rules.js';

/** A memory store that counts its calls, and fails those `fails` names. */
function spiedStore(fails: (method: string, key: string) => boolean = () => false) {
  const inner = memoryUsageStore();
  const calls: string[] = [];
  const store = Object.fromEntries(
    Object.entries(inner).map(([name, member]) => [
      name,
      // peek reads this container's memory: no call, and not counted.
      typeof member === 'function' && name !== 'peek'
        ? async (key: string, ...rest: unknown[]) => {
            calls.push(`${name} ${key}`);
            if (fails(name, key)) throw new Error('connect ECONNREFUSED 127.0.0.1:8000');
            return (member as (...args: unknown[]) => unknown).call(inner, key, ...rest);
          }
        : member,
    ]),
  ) as unknown as UsageStore;
  return { store, calls };
}

function recorder() {
  const counted: [string, Record<string, string>, number | undefined][] = [];
  const metrics: MetricRecorder = {
    count: (name, dimensions, value) => counted.push([name, { ...dimensions }, value]),
  };
  return { metrics, counted };
}

const lines: string[] = [];
/** Where a take starts among a spread subject's shards: the first, unless a test moves it. */
let random = () => 0;
const log = createLogger({}, (line) => lines.push(line));

describe('the usage gate', () => {
  it('costs a caller without a plan nothing while there is no account plan', async () => {
    const { store, calls } = spiedStore();
    const gate = new UsageGate({ store, onStoreFailure: 'closed', log, now: () => T0 });
    const admission = admitted(
      await gate.admit({
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
    admitted(await gate.admit({ callerId: 'a', plans, units: ONE_REQUEST }));
    refusal(await gate.admit({ callerId: 'a', plans, units: ONE_REQUEST }));
    expect(calls).toEqual(['take caller#a', 'take account#0', 'take caller#a']);
    // An account plan alone: one record, the next shard of the account.
    calls.length = 0;
    random = () => 0.2;
    admitted(
      await gate.admit({
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
      admitted(await gate.admit({ callerId: 'c', plans, units: ONE_REQUEST }));
    const error = refusal(await gate.admit({ callerId: 'c', plans, units: ONE_REQUEST }));
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
    admitted(await gate.admit({ callerId: 'chatbot', plans, units, metrics }));
    refusal(await gate.admit({ callerId: 'chatbot', plans, units, metrics }));
    expect(counted).toEqual([
      ['CallerCharacters', { Caller: 'chatbot', Api: 'translate' }, 60],
      // One request of the shard's 10 (of 80 on 8 shards) is 10 %, 60 characters of 1000 is
      // 6 %: the larger.
      ['AccountMonthQuotaUsedPercent', {}, 10],
      ['CallerCharacters', { Caller: 'chatbot', Api: 'translate' }, 60],
      ['UsageRefusals', { Plan: 'caller', Limit: 'dayQuotaCharacters.translate' }, undefined],
    ]);
  });

  it('counts an unheld request against the account, never refusing it', async () => {
    const gate = new UsageGate({
      store: memoryUsageStore(),
      onStoreFailure: 'closed',
      log,
      now: () => T0,
    });
    const accountPlan = { dayQuotaRequest: 1 };
    await gate.record(ONE_REQUEST);
    await gate.record(ONE_REQUEST);
    const usage = await usageReport(gate, 'any', { plan: undefined, accountPlan });
    expect(usage.account?.day).toMatchObject({ requests: 2, remaining: { requests: 0 } });
  });

  it('gives the caller back what it took when the store fails at the account, closed', async () => {
    const { store } = spiedStore((method, key) => method === 'take' && key.startsWith('account'));
    const gate = new UsageGate({ store, onStoreFailure: 'closed', log, now: () => T0 });
    const { metrics, counted } = recorder();
    const plans = { plan: { dayQuotaRequest: 5 }, accountPlan: { dayQuotaRequest: 5 } };
    const error = refusal(await gate.admit({ callerId: 'a', plans, units: ONE_REQUEST, metrics }));
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
    const admission = admitted(await gate.admit({ callerId: 'a', plans, units: ONE_REQUEST }));
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
    const admission = admitted(await gate.admit({ callerId: 'a', plans, units: ONE_REQUEST }));
    await admission.giveBack();
    expect(lines.join('\n')).toContain('usage not given back');
    expect(lines.join('\n')).not.toContain('"stack"');
    expect((await usageReport(gate, 'a', plans)).caller.day.requests).toBe(1);
  });

  it('holds a lease in memory while the store fails, under either policy', async () => {
    const { store } = spiedStore((method) => method === 'acquireLease');
    for (const policy of ['open', 'closed'] as const) {
      const gate = new UsageGate({ store, onStoreFailure: policy, log, now: () => T0 });
      const { metrics, counted } = recorder();
      const release = await gate.acquire('a', 1000, { metrics });
      expect(counted).toEqual([['UsageStoreFailures', { Policy: policy }, undefined]]);
      // A second of the same caller in this container is refused while the first runs.
      await expect(gate.acquire('a', 1000)).rejects.toMatchObject({ status: 429, code: '410' });
      await gate.acquire('b', 1000);
      await release();
      await (await gate.acquire('a', 1000))();
    }
  });
});
