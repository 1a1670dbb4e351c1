/**
 * A usage record as a DynamoDB item, and the writes of the DynamoDB store: the forms an
 * admission takes (a block's tokens in one step), a give-back's windows, a lease's condition.
 * What they do under concurrency is held on dynalite (dynamo-usage-store.test.ts, lease.test.ts).
 */
import { describe, expect, it } from 'vitest';
import {
  admissionWrite,
  giveBackWrite,
  leaseWrite,
  stateOfItem,
} from '../../../../lib/usage/dynamo-usage-item.ts';
import { type Demand, EMPTY_STATE } from '../../../../lib/usage/limits.ts';
import { rulesOf } from '../../../../lib/usage/plan.ts';
import { windowsOf } from '../../../../lib/usage/windows.ts';

const T0 = Date.UTC(2026, 10, 25, 10);
const demand = (requests: number, plan: Parameters<typeof rulesOf>[0]): Demand => ({
  nowMs: T0,
  windows: windowsOf(T0),
  counts: { requests, translate: 0, tts: 0 },
  rules: rulesOf(plan),
});
/** An expression with its placeholders filled in, to read. */
const filled = (
  text: string | undefined,
  names: Record<string, string>,
  values: Record<string, { N?: string; S?: string }>,
) =>
  (text ?? '')
    .replace(/#\w+/g, (name) => names[name] ?? name)
    .replace(/:v\d+/g, (value) => values[value]?.N ?? `'${values[value]?.S}'`);

describe('the usage item', () => {
  it('reads an item as a state, and no state from a lease or nothing', () => {
    expect(stateOfItem(undefined)).toBeUndefined();
    expect(stateOfItem({ usageKey: { S: 'lease#x' }, leaseUntil: { N: '1' } })).toBeUndefined();
    expect(
      stateOfItem({
        tat: { N: '5' },
        day: { S: '2026-11-25' },
        dayRequests: { N: '3' },
        dayTts: { N: '7' },
      }),
    ).toEqual({
      ...EMPTY_STATE,
      tat: 5,
      day: '2026-11-25',
      dayCounts: { requests: 3, translate: 0, tts: 7 },
    });
  });

  it("takes a block's tokens in one step of the running bucket, within its tolerance", () => {
    const write = admissionWrite(
      { ...EMPTY_STATE, tat: T0 * 1000 + 5_000, day: '2026-11-25', month: '2026-11' },
      demand(4, { rateRps: 100, burst: 10, dayQuotaRequest: 50 }),
      false,
    );
    const update = filled(write.update, write.names, write.values);
    const condition = filled(write.condition, write.names, write.values);
    expect(update).toContain(`tat = tat + 40000`);
    expect(update).toContain('dayRequests 4');
    // The block fits when the bucket is at most burst - 4 intervals ahead, the quota 4 short.
    expect(condition).toContain(`tat <= ${T0 * 1000 + 90_000 - 30_000}`);
    expect(condition).toContain('dayRequests <= 46');
  });

  it('takes a block of the whole burst in the full form only: no running bucket holds it', () => {
    const known = { ...EMPTY_STATE, tat: T0 * 1000 - 5_000, day: '2026-11-25', month: '2026-11' };
    const write = admissionWrite(known, demand(10, { rateRps: 100, burst: 10 }), true);
    expect(filled(write.update, write.names, write.values)).toContain(
      `tat = ${T0 * 1000 + 100_000}`,
    );
    expect(filled(write.condition, write.names, write.values)).toContain(`tat <= ${T0 * 1000}`);
  });

  it('sets the bucket and the window afresh when the item seen had them full or past', () => {
    const write = admissionWrite(undefined, demand(1, { rateRps: 10 }), false);
    const update = filled(write.update, write.names, write.values);
    expect(update).toContain(`tat = ${T0 * 1000 + 100_000}`);
    expect(update).toContain("day = '2026-11-25'");
    expect(filled(write.condition, write.names, write.values)).toContain(
      'attribute_not_exists(tat)',
    );
  });

  it('gives back from the windows it names only, and the bucket always', () => {
    const back = {
      counts: { requests: 2, translate: 0, tts: 0 },
      day: '2026-11-25',
      month: '2026-11',
      intervalUs: 20,
    };
    const both = giveBackWrite(back, ['day', 'month'])!;
    expect(filled(both.update, both.names, both.values)).toBe(
      'ADD dayRequests -2, monthRequests -2, tat -20',
    );
    const bucket = giveBackWrite(back, [])!;
    expect(filled(bucket.update, bucket.names, bucket.values)).toBe('ADD tat -20');
    expect(giveBackWrite({ ...back, intervalUs: 0 }, [])).toBeUndefined();
  });

  it("takes a lease unless another holder's runs past now", () => {
    const write = leaseWrite('token-1', 2_000, 1_000);
    expect(filled(write.condition, write.names, write.values)).toBe(
      '(attribute_not_exists(leaseUntil) OR leaseUntil <= 1000)',
    );
  });
});
