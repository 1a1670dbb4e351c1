/**
 * What a container remembers of each usage item: the last state and when, the subject's arrival
 * rate across containers, and the guess of the bucket's form it feeds.
 */
import { describe, expect, it } from 'vitest';
import { EMPTY_STATE, type UsageState } from '../../../../lib/usage/limits.js';
import { rulesOf } from '../../../../lib/usage/plan.js';
import { likelyRunning, Sightings } from '../../../../lib/usage/sightings.js';
import { windowsOf } from '../../../../lib/usage/windows.js';

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
});
