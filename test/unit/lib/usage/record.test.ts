/**
 * A request no plan holds, counted in the account's usage: on its shards, never refused, and
 * nothing but a warning when the store fails.
 */
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../../lib/core/log.ts';
import { UsageGate } from '../../../../lib/usage/gate.ts';
import { accountRecorder } from '../../../../lib/usage/record.ts';
import { usageReport } from '../../../../lib/usage/report.ts';
import { ONE_REQUEST } from '../../../../lib/usage/units.ts';
import { spiedStore } from '../../../helpers/usage-spies.ts';
import { T0 } from '../../../helpers/usage-store-rules.ts';

const lines: string[] = [];
const log = createLogger({}, (line) => lines.push(line));

describe("the account's record of requests no plan holds", () => {
  it('counts an unheld request in the account, on its shards, never refusing it', async () => {
    const { store, calls } = spiedStore();
    const random = (() => {
      let next = 0;
      return () => (next++ % 8) / 8;
    })();
    const gate = new UsageGate({ store, onStoreFailure: 'closed', log, now: () => T0, random });
    const accountPlan = { dayQuotaRequest: 1 };
    await accountRecorder(gate).record(ONE_REQUEST);
    await accountRecorder(gate).record(ONE_REQUEST);
    expect(calls).toEqual(['take account#0', 'take account#1']);
    const usage = await usageReport(gate, 'any', { plan: undefined, accountPlan });
    expect(usage.account?.day).toMatchObject({ requests: 2, remaining: { requests: 0 } });
  });

  it('records nothing, with a warning, when the store fails', async () => {
    const { store } = spiedStore(() => true);
    const gate = new UsageGate({ store, onStoreFailure: 'open', log, now: () => T0 });
    lines.length = 0;
    await accountRecorder(gate).record(ONE_REQUEST);
    expect(lines.join('\n')).toContain('usage not recorded');
  });
});
