/**
 * A caller's usage report (lib/usage/report.ts), as GET /usage answers it: read from the gate's
 * store, the caller's only under a plan, the windows as the plan's quotas see them.
 */
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../../lib/core/log.ts';
import { admit } from '../../../../lib/usage/admission.ts';
import { UsageGate } from '../../../../lib/usage/gate.ts';
import { accountRecorder } from '../../../../lib/usage/record.ts';
import { usageReport } from '../../../../lib/usage/report.ts';
import { memoryUsageStore, type UsageStore } from '../../../../lib/usage/store.ts';
import { ONE_REQUEST } from '../../../../lib/usage/units.ts';

const T0 = Date.parse('2026-11-25T10:00:00Z');
const log = createLogger({}, () => {});

function gateOver(store: UsageStore = memoryUsageStore()) {
  return new UsageGate({ store, onStoreFailure: 'closed', log, now: () => T0 });
}

describe('usageReport', () => {
  it("answers a caller's plan, what it used and what is left, and when each window resets", async () => {
    const gate = gateOver();
    const plans = { plan: { dayQuotaRequest: 5, monthQuotaRequest: 100 }, accountPlan: undefined };
    await admit(gate, { callerId: 'a', plans, units: ONE_REQUEST });
    await admit(gate, { callerId: 'a', plans, units: ONE_REQUEST });
    expect(await usageReport(gate, 'a', plans)).toEqual({
      caller: {
        plan: plans.plan,
        counted: true,
        day: {
          window: '2026-11-25',
          requests: 2,
          characters: { translate: 0, tts: 0 },
          remaining: { requests: 3 },
          resetsAt: '2026-11-26T00:00:00.000Z',
        },
        month: {
          window: '2026-11',
          requests: 2,
          characters: { translate: 0, tts: 0 },
          remaining: { requests: 98 },
          resetsAt: '2026-12-01T00:00:00.000Z',
        },
      },
      account: undefined,
    });
  });

  it('reads nothing for a caller without a plan, and says it is not counted', async () => {
    const inner = memoryUsageStore();
    const reads: string[] = [];
    const store: UsageStore = {
      ...inner,
      read: async (key) => {
        reads.push(key);
        return inner.read(key);
      },
    };
    const report = await usageReport(gateOver(store), 'free', {
      plan: undefined,
      accountPlan: undefined,
    });
    expect(reads).toEqual([]);
    expect(report.caller).toMatchObject({ plan: null, counted: false, day: { requests: 0 } });
    expect(report.account).toBeUndefined();
  });

  it("adds the account's plan and usage when the secret has one, whoever asks", async () => {
    const gate = gateOver();
    const accountPlan = { dayQuotaCharacters: { translate: 1000 } };
    await accountRecorder(gate).record({
      ...ONE_REQUEST,
      characters: { api: 'translate', count: 40 },
    });
    const report = await usageReport(gate, 'free', { plan: undefined, accountPlan });
    expect(report.account?.day).toMatchObject({
      requests: 1,
      characters: { translate: 40, tts: 0 },
      remaining: { characters: { translate: 960, tts: undefined } },
    });
  });
});
