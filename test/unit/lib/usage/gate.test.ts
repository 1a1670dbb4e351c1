/**
 * The usage gate over the memory store, for what the store rules leave out: no call without a
 * plan, the metrics, counting unheld requests, a store that fails half way.
 */
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../../lib/core/log.js';
import { type MetricRecorder, UsageGate } from '../../../../lib/usage/gate.js';
import { memoryUsageStore, type UsageStore } from '../../../../lib/usage/store.js';
import { ONE_REQUEST } from '../../../../lib/usage/units.js';
import { admitted, refusal, T0 } from '../../../helpers/usage-store-rules.js';
import { usageReport } from '../../../../lib/usage/report.js';

/** A memory store that counts its calls, and fails those `fails` names. */
function spiedStore(fails: (method: string, key: string) => boolean = () => false) {
  const inner = memoryUsageStore();
  const calls: string[] = [];
  const store = Object.fromEntries(
    Object.entries(inner).map(([name, member]) => [
      name,
      typeof member === 'function'
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
    const gate = new UsageGate({ store, onStoreFailure: 'closed', log, now: () => T0 });
    const plans = { plan: { dayQuotaRequest: 1 }, accountPlan: { dayQuotaRequest: 100 } };
    admitted(await gate.admit({ callerId: 'a', plans, units: ONE_REQUEST }));
    refusal(await gate.admit({ callerId: 'a', plans, units: ONE_REQUEST }));
    expect(calls).toEqual(['take caller#a', 'take account', 'take caller#a']);
    // An account plan alone: one record.
    calls.length = 0;
    admitted(
      await gate.admit({
        callerId: 'b',
        plans: { plan: undefined, accountPlan: plans.accountPlan },
        units: ONE_REQUEST,
      }),
    );
    expect(calls).toEqual(['take account']);
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
      accountPlan: { monthQuotaRequest: 8, monthQuotaCharacters: { translate: 1000 } },
    };
    const units = { requests: 1, characters: { api: 'translate' as const, count: 60 } };
    admitted(await gate.admit({ callerId: 'chatbot', plans, units, metrics }));
    refusal(await gate.admit({ callerId: 'chatbot', plans, units, metrics }));
    expect(counted).toEqual([
      ['CallerCharacters', { Caller: 'chatbot', Api: 'translate' }, 60],
      // One request of 8 is 13 %, 60 characters of 1000 is 6 %: the larger.
      ['AccountMonthQuotaUsedPercent', {}, 13],
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
    const { store } = spiedStore((method, key) => method === 'take' && key === 'account');
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
    const { store } = spiedStore((method, key) => method === 'take' && key === 'account');
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

  it('answers a lease with its store failure as an admission does', async () => {
    const { store } = spiedStore((method) => method === 'acquireLease');
    const open = new UsageGate({ store, onStoreFailure: 'open', log, now: () => T0 });
    const release = await open.acquire('a', 1000);
    await release();
    const closed = new UsageGate({ store, onStoreFailure: 'closed', log, now: () => T0 });
    await expect(closed.acquire('a', 1000)).rejects.toMatchObject({ status: 503, code: '500' });
  });
});
