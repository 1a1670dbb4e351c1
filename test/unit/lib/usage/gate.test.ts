/**
 * The usage gate's own parts: its clock and windows, a failing store said once with its metric,
 * give-backs kept until they end.
 */
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../../lib/core/log.ts';
import { UsageGate } from '../../../../lib/usage/gate.ts';
import { memoryUsageStore } from '../../../../lib/usage/store.ts';
import { recorder } from '../../../helpers/usage-spies.ts';
import { T0 } from '../../../helpers/usage-store-rules.ts';

const lines: string[] = [];
const log = createLogger({}, (line) => lines.push(line));

describe('the usage gate', () => {
  it('tells the instant and its windows by its clock', () => {
    const gate = new UsageGate({
      store: memoryUsageStore(),
      onStoreFailure: 'open',
      log,
      now: () => T0,
    });
    expect(gate.instant()).toMatchObject({
      nowMs: T0,
      windows: { day: '2026-11-25', month: '2026-11' },
    });
  });

  it('says a failing store with its policy and the metric, never a stack', () => {
    const gate = new UsageGate({ store: memoryUsageStore(), onStoreFailure: 'closed', log });
    const { metrics, counted } = recorder();
    lines.length = 0;
    gate.storeFailed(new Error('connect ECONNREFUSED'), metrics);
    expect(counted).toEqual([['UsageStoreFailures', { Policy: 'closed' }, undefined]]);
    expect(lines.join('\n')).toContain('usage store failed: rates held from memory, quotas closed');
    expect(lines.join('\n')).not.toContain('"stack"');
  });

  it('keeps a give-back until it ends, so that settled waits for it', async () => {
    const gate = new UsageGate({ store: memoryUsageStore(), onStoreFailure: 'open', log });
    let ended = false;
    const work = gate.keep(new Promise<void>((resolve) => setTimeout(() => resolve(), 20)));
    void work.then(() => {
      ended = true;
    });
    await gate.settled();
    expect(ended).toBe(true);
  });
});
