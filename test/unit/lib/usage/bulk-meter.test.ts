/**
 * The meter of bulk work over the memory store, on the real clock (rates high enough that a
 * wait for tokens is a few tens of milliseconds): a unit for each call, in blocks that wait for
 * the bucket, the walk stopped by a quota (the block shrunk to what it left first) or by a wait
 * longer than its time, units of calls that never went out and those a block left unused given
 * back, and the store down under either policy.
 */
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../../lib/core/log.ts';
import { BulkMeter } from '../../../../lib/usage/bulk-meter.ts';
import { UsageGate } from '../../../../lib/usage/gate.ts';
import type { Plans } from '../../../../lib/usage/plan.ts';
import { usageReport } from '../../../../lib/usage/report.ts';
import { memoryUsageStore, type UsageStore } from '../../../../lib/usage/store.ts';
import { recorder, spiedStore } from '../../../helpers/usage-spies.ts';

const log = createLogger({}, () => {});
const always = (_ms: number) => true;

function meterOver(
  plans: Plans,
  store: UsageStore = memoryUsageStore(),
  policy: 'open' | 'closed' = 'closed',
) {
  const gate = new UsageGate({ store, onStoreFailure: policy, log, random: () => 0 });
  const { metrics, counted } = recorder();
  return { gate, counted, meter: new BulkMeter(gate, 'ops', plans, { metrics, log }) };
}

/** Units for `calls` calls, in turn; the first refusal, if one stops them. */
async function spend(meter: BulkMeter, calls: number, canWait = always) {
  for (let call = 0; call < calls; call++) {
    const refused = await meter.take(canWait);
    if (refused) return { spent: call, refused };
  }
  return { spent: calls, refused: undefined };
}

describe('the bulk meter', () => {
  it('takes nothing of a caller without a plan while there is no account plan', async () => {
    const { store, calls } = spiedStore();
    const { meter } = meterOver({ plan: undefined, accountPlan: undefined }, store);
    expect(await spend(meter, 50)).toEqual({ spent: 50, refused: undefined });
    await meter.finish();
    expect(calls).toEqual([]);
  });

  it('takes a unit for each call in blocks of the work expected, up to the burst, waiting for its tokens', async () => {
    const { store, calls } = spiedStore();
    const plans = {
      plan: { rateRps: 200, burst: 40, dayQuotaRequest: 1000 },
      accountPlan: undefined,
    };
    const { meter, gate } = meterOver(plans, store);
    meter.expect(100);
    expect(await spend(meter, 100)).toEqual({ spent: 100, refused: undefined });
    // Blocks of 40, 40 and 20, each taken once the bucket held it again: a take of each, and
    // for the last two one the bucket refused first (the memory store asks itself each time;
    // the DynamoDB store answers that refusal from what it saw).
    const takes = calls.filter((call) => call === 'take caller#ops');
    expect(takes.length).toBeGreaterThanOrEqual(3);
    expect(takes.length).toBeLessThanOrEqual(5);
    await meter.finish();
    expect((await usageReport(gate, 'ops', plans)).caller.day.requests).toBe(100);
  });

  it('stops when a quota refuses, having shrunk its last block to what the quota left', async () => {
    const plans = {
      plan: { rateRps: 200, burst: 50, dayQuotaRequest: 70 },
      accountPlan: undefined,
    };
    const { meter, gate, counted } = meterOver(plans);
    meter.expect(100);
    const { spent, refused } = await spend(meter, 100);
    expect(spent).toBe(70);
    expect(refused).toMatchObject({ status: 429, code: '400' });
    // Every later take answers the same.
    expect(await meter.take(always)).toBe(refused);
    expect(counted).toContainEqual([
      'UsageRefusals',
      { Plan: 'caller', Limit: 'dayQuotaRequest' },
      undefined,
    ]);
    await meter.finish();
    expect((await usageReport(gate, 'ops', plans)).caller.day.requests).toBe(70);
    expect(meter.fields().RateLimit).toContain('"caller-day";r=0;');
  });

  it('stops with 429/420 when the time left cannot cover the wait for a token', async () => {
    const plans = { plan: { rateRps: 1, burst: 2 }, accountPlan: undefined };
    const { meter } = meterOver(plans);
    const { spent, refused } = await spend(meter, 5, (ms) => ms < 100);
    expect(spent).toBe(2);
    expect(refused).toMatchObject({ status: 429, code: '420' });
  });

  it('gives back the units of calls that never went out, and what its blocks left unused', async () => {
    const plans = { plan: { rateRps: 100 }, accountPlan: { dayQuotaRequest: 1000 } };
    const { meter, gate } = meterOver(plans);
    meter.expect(10);
    await spend(meter, 4);
    meter.unspent();
    await meter.finish();
    const usage = await usageReport(gate, 'ops', plans);
    expect(usage.caller.day.requests).toBe(3);
    expect(usage.account?.day.requests).toBe(3);
  });

  it('holds the rate from memory and leaves quotas uncounted while the store fails, open', async () => {
    const { store } = spiedStore(() => true);
    const plans = { plan: { rateRps: 2, burst: 3, dayQuotaRequest: 1 }, accountPlan: undefined };
    const { meter, counted } = meterOver(plans, store, 'open');
    meter.expect(10);
    const { spent, refused } = await spend(meter, 10, (ms) => ms < 100);
    expect(spent).toBe(3);
    expect(refused).toMatchObject({ code: '420' });
    expect(counted[0]).toEqual(['UsageStoreFailures', { Policy: 'open' }, undefined]);
  });

  it('stops a walk whose plan has quotas while the store fails, closed; a rate alone goes on from memory', async () => {
    const { store } = spiedStore(() => true);
    const quota = meterOver({ plan: { dayQuotaRequest: 5 }, accountPlan: undefined }, store);
    expect((await spend(quota.meter, 3)).refused).toMatchObject({ status: 503, code: '500' });
    const rate = meterOver({ plan: { rateRps: 100 }, accountPlan: undefined }, store);
    expect(await spend(rate.meter, 5)).toEqual({ spent: 5, refused: undefined });
  });
});
