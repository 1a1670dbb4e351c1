/**
 * What a container remembers of each usage item: the last state and when, the subject's arrival
 * rate across containers, the guess of the bucket's form it feeds, and the hold after a lost
 * token.
 */
import { describe, expect, it } from 'vitest';
import { EMPTY_STATE, type UsageState } from '../../../../lib/usage/limits.ts';
import { rulesOf } from '../../../../lib/usage/plan.ts';
import { likelyRunning, Sightings } from '../../../../lib/usage/sightings.ts';
import { windowsOf } from '../../../../lib/usage/windows.ts';

const T0 = Date.UTC(2026, 10, 25, 10);
const dayWith = (requests: number): UsageState => ({
  ...EMPTY_STATE,
  day: '2026-11-25',
  dayCounts: { requests, translate: 0, tts: 0 },
});

describe('sightings', () => {
  it("learns the subject's arrival rate from its day counter, smoothed", () => {
    const sightings = new Sightings();
    sightings.remember('caller#a', dayWith(10), T0);
    expect(sightings.get('caller#a')?.perMs).toBe(0);
    sightings.remember('caller#a', dayWith(20), T0 + 100);
    expect(sightings.get('caller#a')?.perMs).toBeCloseTo(0.1);
    sightings.remember('caller#a', dayWith(20), T0 + 200);
    expect(sightings.get('caller#a')?.perMs).toBeCloseTo(0.07);
  });

  it('forgets an item it no longer sees, and the oldest past its bound', () => {
    const sightings = new Sightings();
    sightings.remember('a', dayWith(1), T0);
    sightings.remember('a', undefined, T0 + 1);
    expect(sightings.has('a')).toBe(false);
    for (let i = 0; i < 4001; i++) sightings.remember(`k${i}`, dayWith(1), T0);
    expect(sightings.size).toBe(4000);
    expect(sightings.has('k0')).toBe(false);
  });

  it('guesses a bucket running once its subject arrives at 70 % of the rate or more', () => {
    const rules = rulesOf({ rateRps: 10 });
    const demand = {
      nowMs: T0,
      windows: windowsOf(T0),
      counts: { requests: 1, translate: 0, tts: 0 },
      rules,
    };
    const at = (perMs: number) => ({ state: dayWith(1), at: T0, perMs });
    expect(likelyRunning(at(0.006), demand)).toBe(false);
    expect(likelyRunning(at(0.008), demand)).toBe(true);
    expect(likelyRunning(undefined, demand)).toBe(false);
    expect(likelyRunning(at(1), { ...demand, rules: rulesOf({ dayQuotaRequest: 1 }) })).toBe(false);
  });

  it('holds a bucket off after a lost token, a random while doubling with each loss, at most 250 ms', () => {
    const sightings = new Sightings();
    const refusal = { kind: 'rate', limit: 'rateRps', retryAfterMs: 40 } as const;
    expect(sightings.lost('a', refusal, 1, 100, () => 1)).toEqual(refusal); // never seen
    sightings.remember('a', dayWith(1), T0);
    expect(sightings.lost('a', refusal, 1, 100, () => 0.5).retryAfterMs).toBe(90);
    expect(sightings.get('a')).toMatchObject({ losses: 1, holdUntil: T0 + 90 });
    expect(sightings.lost('a', refusal, 2, 100, () => 1).retryAfterMs).toBe(240);
    expect(sightings.lost('a', refusal, 6, 100, () => 1).retryAfterMs).toBe(290);
    // A write taken forgets the losses.
    sightings.remember('a', dayWith(2), T0 + 300);
    expect(sightings.get('a')?.losses).toBeUndefined();
  });
});
