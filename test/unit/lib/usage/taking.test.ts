/**
 * Taking units from a subject's records, over the memory store: one item, or a spread subject's
 * shards (the next when a share is spent, text on its own item), exactly or up to a block, from
 * memory while the store fails, and giving them back.
 */
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../../lib/core/log.ts';
import { memoryUsageStore } from '../../../../lib/usage/store.ts';
import {
  giveBackAll,
  hasQuota,
  heldPart,
  subjectsOf,
  takeFromSubject,
} from '../../../../lib/usage/taking.ts';
import { windowsOf } from '../../../../lib/usage/windows.ts';
import { spiedStore } from '../../../helpers/usage-spies.ts';

const T0 = Date.UTC(2026, 10, 25, 10);
const at = { nowMs: T0, windows: windowsOf(T0) };
const log = createLogger({}, () => {});
const ONE = { requests: 1, translate: 0, tts: 0 };
const subjectOf = (plan: Parameters<typeof subjectsOf>[1]['plan'], id = 'a') =>
  subjectsOf(id, { plan, accountPlan: undefined })[0]!;

describe('taking', () => {
  it('names the caller first, then the account, and skips a plan that is not there', () => {
    const subjects = subjectsOf('a', { plan: { rateRps: 5 }, accountPlan: { dayQuotaRequest: 1 } });
    expect(subjects.map((s) => [s.holder, s.layout.key, s.layout.shards.length])).toEqual([
      ['caller', 'caller#a', 0],
      ['account', 'account', 8],
    ]);
    expect(subjectsOf('a', { plan: undefined, accountPlan: undefined })).toEqual([]);
    expect(hasQuota(subjects[0]!)).toBe(false);
    expect(hasQuota(subjects[1]!)).toBe(true);
  });

  it("moves on to the next shard when one's share is spent, and refuses once all are", async () => {
    const { store, calls } = spiedStore();
    const subject = subjectOf({ dayQuotaRequest: 9 });
    const take = {
      store,
      subject,
      perUnit: ONE,
      most: 1,
      exact: true,
      at,
      log,
      random: () => 0.99,
    };
    const held: string[] = [];
    for (let i = 0; i < 9; i++) {
      const taken = await takeFromSubject(take);
      if (!taken.ok) throw new Error('refused');
      held.push(taken.held[0]!.key);
    }
    // Starting at the last shard: its share of 1, then the first's 2, ...
    expect(held.slice(0, 3)).toEqual(['caller#a#7', 'caller#a#0', 'caller#a#0']);
    const refused = await takeFromSubject(take);
    expect(refused).toMatchObject({
      ok: false,
      refusal: { kind: 'quota', limit: 'dayQuotaRequest' },
    });
    expect(calls.filter((call) => call.startsWith('take')).length).toBeGreaterThan(9);
  });

  it('answers the soonest token of the shards, when their buckets refuse', async () => {
    const subject = subjectOf({ rateRps: 800 });
    const store = memoryUsageStore();
    const take = { store, subject, perUnit: ONE, most: 1, exact: true, at, log, random: () => 0 };
    for (let i = 0; i < 800; i++) expect((await takeFromSubject(take)).ok).toBe(true);
    const refused = await takeFromSubject(take);
    expect(refused).toMatchObject({ ok: false, refusal: { kind: 'rate', limit: 'rateRps' } });
    if (refused.ok) throw new Error('admitted');
    expect(refused.refusal.retryAfterMs).toBeCloseTo(10, 0);
  });

  it("takes a spread subject's text from its own item, and gives the shard's unit back when the text is refused", async () => {
    const store = memoryUsageStore();
    const subject = subjectOf({ dayQuotaCharacters: { translate: 10 } });
    const text = (count: number) => ({ requests: 1, translate: count, tts: 0 });
    const take = { store, subject, most: 1, exact: true, at, log, random: () => 0 };
    const taken = await takeFromSubject({ ...take, perUnit: text(6) });
    expect(taken.ok && taken.held.map((h) => h.key)).toEqual(['caller#a#0', 'caller#a']);
    expect(await takeFromSubject({ ...take, perUnit: text(5) })).toMatchObject({ ok: false });
    expect((await store.read('caller#a#0'))?.dayCounts.requests).toBe(1);
  });

  it('takes a block up to the burst, shrinks it to what a quota leaves, and tells the bucket is short', async () => {
    const store = memoryUsageStore();
    const subject = subjectOf({ rateRps: 50, dayQuotaRequest: 70 });
    const take = { store, subject, perUnit: ONE, exact: false, at, log, random: () => 0 };
    const first = await takeFromSubject({ ...take, most: 100 });
    expect(first).toMatchObject({ ok: true, units: 50 });
    // The bucket is empty: a block of 20 waits for its tokens (400 ms).
    const short = await takeFromSubject({ ...take, most: 20 });
    expect(short).toMatchObject({ ok: false, refusal: { kind: 'rate' } });
    if (short.ok) throw new Error('taken');
    expect(short.refusal.retryAfterMs).toBe(400);
    const later = { nowMs: T0 + 1000, windows: at.windows };
    // A second later: 50 tokens, but the quota leaves 20.
    expect(await takeFromSubject({ ...take, at: later, most: 50 })).toMatchObject({
      ok: true,
      units: 20,
    });
    expect(await takeFromSubject({ ...take, at: later, most: 50 })).toMatchObject({
      ok: false,
      refusal: { kind: 'quota' },
    });
  });

  it('holds the whole plan to its rate in memory while the store fails, and keeps nothing there to give back', async () => {
    const down = memoryUsageStore();
    const subject = subjectsOf('a', { plan: undefined, accountPlan: { rateRps: 2, burst: 2 } })[0]!;
    const take = {
      store: memoryUsageStore(),
      subject,
      perUnit: ONE,
      most: 1,
      exact: true,
      at,
      log,
      random: () => 0,
      down,
    };
    expect(await takeFromSubject(take)).toMatchObject({ ok: true, held: [] });
    expect(await takeFromSubject(take)).toMatchObject({ ok: true, held: [] });
    expect(await takeFromSubject(take)).toMatchObject({ ok: false, refusal: { kind: 'rate' } });
    expect(await down.read('account')).toBeDefined();
  });

  it('gives back all or part of what was taken, and leaves it counted when the store fails', async () => {
    const store = memoryUsageStore();
    const subject = subjectOf({ rateRps: 100, dayQuotaRequest: 100 });
    const taken = await takeFromSubject({
      store,
      subject,
      perUnit: ONE,
      most: 10,
      exact: false,
      at,
      log,
      random: () => 0,
    });
    if (!taken.ok) throw new Error('refused');
    await giveBackAll(store, heldPart(taken.held, 4, 10), log);
    expect((await store.read('caller#a'))?.dayCounts.requests).toBe(6);
    const lines: string[] = [];
    const failing = spiedStore(() => true).store;
    await giveBackAll(
      failing,
      taken.held,
      createLogger({}, (line) => lines.push(line)),
    );
    expect(lines.join('\n')).toContain('usage not given back');
  });
});
