/**
 * Where a subject's usage is kept: one item, or the shards of a spread subject, whose shares of
 * the plan add up to the plan exactly (quotas, burst) or never exceed it (rate).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { rulesOf } from '../../../../lib/usage/plan.ts';
import {
  isSpread,
  keysOf,
  layoutOf,
  SHARDS,
  SINGLE_ITEM_MAX_RPS,
  shareOf,
  splitCounts,
} from '../../../../lib/usage/shards.ts';

describe('shards', () => {
  it('shares a whole amount in parts that differ by one at most and add up to it', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10_000_000 }),
        fc.integer({ min: 1, max: 16 }),
        (total, n) => {
          const shares = Array.from({ length: n }, (_, i) => shareOf(total, i, n));
          expect(shares.reduce((a, b) => a + b, 0)).toBe(total);
          expect(Math.max(...shares) - Math.min(...shares)).toBeLessThanOrEqual(1);
        },
      ),
    );
  });

  it('spreads a plan with no rate, or one above a few hundred a second; keeps any other on one item', () => {
    expect(isSpread(rulesOf({ dayQuotaRequest: 10 }))).toBe(true);
    expect(isSpread(rulesOf({ rateRps: SINGLE_ITEM_MAX_RPS + 1 }))).toBe(true);
    expect(isSpread(rulesOf({ rateRps: SINGLE_ITEM_MAX_RPS, dayQuotaRequest: 10 }))).toBe(false);
    const single = layoutOf('caller#a', rulesOf({ rateRps: 5 }));
    expect(single).toMatchObject({ key: 'caller#a', shards: [] });
    // The account is spread whatever its plan.
    expect(layoutOf('account', rulesOf({ rateRps: 5 }), true).shards).toHaveLength(5);
  });

  it("gives each shard its share of the request quotas and the bucket, and leaves text on the subject's own item", () => {
    const plan = {
      rateRps: 1000,
      burst: 2000,
      dayQuotaRequest: 100,
      monthQuotaRequest: 1003,
      dayQuotaCharacters: { translate: 500 },
    };
    const layout = layoutOf('caller#bot', rulesOf(plan));
    expect(layout.shards.map((shard) => shard.key)).toEqual(
      Array.from({ length: SHARDS }, (_, i) => `caller#bot#${i}`),
    );
    const sum = (pick: (rules: (typeof layout.shards)[number]['rules']) => number) =>
      layout.shards.reduce((total, shard) => total + pick(shard.rules), 0);
    expect(sum((rules) => rules.day.requests ?? 0)).toBe(100);
    expect(sum((rules) => rules.month.requests ?? 0)).toBe(1003);
    expect(sum((rules) => rules.rate?.burst ?? 0)).toBe(2000);
    // Each interval rounded up: the shards together never run faster than the plan.
    expect(sum((rules) => 1_000_000 / (rules.rate?.intervalUs ?? Infinity))).toBeLessThanOrEqual(
      1000,
    );
    expect(sum((rules) => 1_000_000 / (rules.rate?.intervalUs ?? Infinity))).toBeGreaterThan(999);
    for (const shard of layout.shards) expect(shard.rules.day.translate).toBeUndefined();
    expect(layout.rules).toEqual({ rate: undefined, day: { translate: 500 }, month: {} });
  });

  it('leaves out a shard with no share of the burst, and shares the quotas among the others', () => {
    const layout = layoutOf(
      'account',
      rulesOf({ rateRps: 300, burst: 3, dayQuotaRequest: 10 }),
      true,
    );
    expect(layout.shards.map((shard) => shard.key)).toEqual([
      'account#0',
      'account#1',
      'account#2',
    ]);
    expect(layout.shards.map((shard) => shard.rules.day.requests)).toEqual([4, 3, 3]);
    expect(layout.shards.map((shard) => shard.rules.rate?.burst)).toEqual([1, 1, 1]);
  });

  it("splits what a request spends: its requests to a shard, its text to the subject's own item", () => {
    expect(splitCounts({ requests: 1, translate: 40, tts: 0 })).toEqual({
      requests: { requests: 1, translate: 0, tts: 0 },
      characters: { requests: 0, translate: 40, tts: 0 },
    });
  });

  it('names every record a report reads, in either layout', () => {
    expect(keysOf('account')).toEqual([
      'account',
      ...Array.from({ length: 8 }, (_, i) => `account#${i}`),
    ]);
  });
});
