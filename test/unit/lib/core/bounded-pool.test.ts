import { describe, expect, it } from 'vitest';
import { AdaptiveLimit, runBounded } from '../../../../lib/core/bounded-pool.ts';

/** A call that ends when the test says so. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('AdaptiveLimit', () => {
  it('halves on a throttle, once per pause, and grows by one after each full round', () => {
    let now = 0;
    const limit = new AdaptiveLimit(8, { now: () => now, pauseMs: 100 });
    expect(limit.current).toBe(8);
    limit.throttled();
    expect(limit.current).toBe(4);
    expect(limit.waitMs()).toBe(100);
    // The same burst, seen by the calls already in flight: no second halving.
    limit.throttled();
    expect(limit.current).toBe(4);
    now = 100;
    expect(limit.waitMs()).toBe(0);
    limit.throttled(500); // Retry-After: 0.5 s
    expect(limit.current).toBe(2);
    expect(limit.waitMs()).toBe(500);
    now = 600;
    limit.throttled();
    expect(limit.current).toBe(1);
    limit.throttled();
    now = 1000;
    limit.throttled();
    expect(limit.current).toBe(1);
    // Additive increase: one more after `current` successes in a row.
    limit.succeeded();
    expect(limit.current).toBe(2);
    limit.succeeded();
    expect(limit.current).toBe(2);
    limit.succeeded();
    expect(limit.current).toBe(3);
    for (let i = 0; i < 100; i++) limit.succeeded();
    expect(limit.current).toBe(8);
  });

  it('refuses a limit below 1', () => {
    expect(() => new AdaptiveLimit(0)).toThrow();
  });
});

describe('runBounded', () => {
  it('runs every item, in order, never more than the limit at once', async () => {
    const limit = new AdaptiveLimit(3);
    let inFlight = 0;
    let most = 0;
    const started: number[] = [];
    const left = await runBounded(
      Array.from({ length: 20 }, (_, i) => i),
      async (item) => {
        started.push(item);
        inFlight++;
        most = Math.max(most, inFlight);
        await tick();
        inFlight--;
      },
      { limit },
    );
    expect(left).toEqual([]);
    expect(started).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(most).toBe(3);
  });

  it('stops starting when the time is up, waits for the calls in flight, and hands back the rest', async () => {
    const limit = new AdaptiveLimit(2);
    const gates = new Map<number, ReturnType<typeof gate>>();
    let timeLeft = true;
    const finished: number[] = [];
    const run = runBounded(
      [1, 2, 3, 4, 5],
      async (item) => {
        const g = gate();
        gates.set(item, g);
        await g.opened;
        finished.push(item);
      },
      { limit, mayStart: () => timeLeft },
    );
    await tick();
    expect([...gates.keys()]).toEqual([1, 2]);
    gates.get(1)!.open();
    await tick();
    expect([...gates.keys()]).toEqual([1, 2, 3]);
    timeLeft = false;
    gates.get(2)!.open();
    await tick();
    // Nothing more starts, but 3 is still awaited.
    expect([...gates.keys()]).toEqual([1, 2, 3]);
    gates.get(3)!.open();
    expect(await run).toEqual([4, 5]);
    expect(finished).toEqual([1, 2, 3]);
  });

  it('runs an item handed back after the others', async () => {
    const limit = new AdaptiveLimit(1);
    const runs: string[] = [];
    const tries = new Map<string, number>();
    const left = await runBounded(
      ['a', 'b', 'c'],
      async (item, again) => {
        runs.push(item);
        const count = (tries.get(item) ?? 0) + 1;
        tries.set(item, count);
        if (item === 'a' && count === 1) again(item);
      },
      { limit },
    );
    expect(left).toEqual([]);
    expect(runs).toEqual(['a', 'b', 'c', 'a']);
  });

  it('holds new starts while throttled, with fewer in flight afterwards', async () => {
    const limit = new AdaptiveLimit(4, { pauseMs: 30 });
    let inFlight = 0;
    const inFlightAtStart: number[] = [];
    let throttledOnce = false;
    const left = await runBounded(
      Array.from({ length: 12 }, (_, i) => i),
      async (item) => {
        inFlightAtStart.push(inFlight);
        inFlight++;
        await tick();
        if (item === 0 && !throttledOnce) {
          throttledOnce = true;
          limit.throttled();
        } else limit.succeeded();
        inFlight--;
      },
      { limit },
    );
    expect(left).toEqual([]);
    expect(inFlightAtStart.slice(0, 4)).toEqual([0, 1, 2, 3]);
    // After the throttle the limit was 2: no start found more than 1 other call in flight
    // until the limit grew back.
    expect(inFlightAtStart[4]).toBeLessThanOrEqual(1);
  });

  it('stops waiting out a long pause once the time is up', async () => {
    const limit = new AdaptiveLimit(2);
    // The gateway asked for a minute: the invocation has less than that.
    limit.throttled(60_000);
    let asked = 0;
    const started: number[] = [];
    const left = await runBounded(
      [1, 2, 3],
      async (item) => {
        started.push(item);
      },
      { limit, mayStart: () => ++asked < 3 },
    );
    expect(started).toEqual([]);
    expect(left).toEqual([1, 2, 3]);
  });

  it('starts nothing more after a work throws, and throws its error once the others end', async () => {
    const limit = new AdaptiveLimit(2);
    const started: number[] = [];
    await expect(
      runBounded(
        [1, 2, 3, 4],
        async (item) => {
          started.push(item);
          await tick();
          if (item === 1) throw new Error('bug');
        },
        { limit },
      ),
    ).rejects.toThrow('bug');
    expect(started).toEqual([1, 2]);
  });
});
