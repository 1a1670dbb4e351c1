import { describe, expect, it } from 'vitest';
import { demoScanJobs } from '../../../../emulator/index.ts';
import { createScanJobStore } from '../../../../emulator/scan-jobs/store.ts';
import { emulatorForSuite } from '../../../helpers/emulator.ts';
import { json, signedFetch } from '../helpers.ts';

// 2026-11-21 12:00:00 in platform time (UTC+9).
const START = Date.UTC(2026, 10, 21, 3, 0, 0);

function fakeClock(start = START) {
  let now = start;
  return { now: () => now, tick: (ms: number) => (now += ms) };
}

describe('scan job store', () => {
  it('moves a job one phase per advance and stops at Complete', () => {
    const clock = fakeClock();
    const store = createScanJobStore({ now: clock.now });

    const [started] = store.advance('2810017');
    clock.tick(60_000);
    const [finished] = store.advance('2810017');
    const again = store.advance('2810017');

    expect(started).toMatchObject({
      status: 'Progress',
      result_button: 'terminate',
      progress: 0,
      start_date: '2026-11-21 12:00:00',
    });
    expect(finished).toMatchObject({
      status: 'Complete',
      result_button: 'report',
      progress: 100,
      end_date: '2026-11-21 12:01:00',
    });
    expect(finished?.scan_cnt).toBe(finished?.crawl_cnt);
    expect(again).toEqual([]);
  });

  it('leaves cancelled and stopped jobs where they are', () => {
    const store = createScanJobStore({ now: Date.now });

    expect(store.advance('2810007')).toEqual([]);
    expect(store.advance('2810004')).toEqual([]);
    expect(store.get('2810007')?.status).toBe('Cancel');
  });

  it('advances every moving job when given no id', () => {
    const store = createScanJobStore({ now: Date.now });

    const moved = store.advance();

    expect(moved).toHaveLength(14);
    expect(store.list().filter((job) => job.status === 'Reservation')).toEqual([]);
    expect(store.list().filter((job) => job.status === 'Complete')).toHaveLength(9 + 5);
  });

  it('throws on an unknown id', () => {
    const store = createScanJobStore({ now: Date.now });

    expect(() => store.advance('42')).toThrow(/42/);
  });

  it('allows cancel only on a reservation and stop only on a running job', () => {
    const store = createScanJobStore({ now: Date.now });

    expect(store.cancel('2810017')).toBe('done');
    expect(store.cancel('2810017')).toBe('wrong-phase');
    expect(store.cancel('2810013')).toBe('wrong-phase');
    expect(store.stop('2810013')).toBe('done');
    expect(store.stop('2810017')).toBe('wrong-phase');
    expect(store.stop('nope')).toBe('not-found');
  });

  it('hands out copies, so callers cannot change its state', () => {
    const store = createScanJobStore({ now: Date.now });

    const job = store.get('2810017');
    if (job) job.status = 'Complete';
    const listed = store.list();
    if (listed[0]) listed[0].memo = 'changed';

    expect(store.get('2810017')?.status).toBe('Reservation');
    expect(store.list()[0]?.memo).not.toBe('changed');
  });

  it('goes back to the demo set on reset', () => {
    const store = createScanJobStore({ now: Date.now });
    store.advance();
    store.cancel('2810018');

    store.reset();

    expect(store.list()).toEqual([...demoScanJobs()].reverse());
  });

  describe('with a phase duration', () => {
    it('moves jobs one phase per period as time passes', () => {
      const clock = fakeClock();
      const store = createScanJobStore({ now: clock.now, phaseDurationMs: 1000 });

      clock.tick(999);
      expect(store.get('2810017')?.status).toBe('Reservation');
      clock.tick(1);
      expect(store.get('2810017')).toMatchObject({
        status: 'Progress',
        start_date: '2026-11-21 12:00:01',
      });
      clock.tick(1000);
      expect(store.get('2810017')).toMatchObject({
        status: 'Complete',
        end_date: '2026-11-21 12:00:02',
      });
      expect(store.get('2810007')?.status).toBe('Cancel');
    });

    it('catches up several phases at once, dating each when it fell due', () => {
      const clock = fakeClock();
      const store = createScanJobStore({ now: clock.now, phaseDurationMs: 1000 });

      clock.tick(10_000);

      expect(store.get('2810017')).toMatchObject({
        status: 'Complete',
        start_date: '2026-11-21 12:00:01',
        end_date: '2026-11-21 12:00:02',
      });
      expect(
        store.list().filter((job) => job.status === 'Reservation' || job.status === 'Progress'),
      ).toEqual([]);
    });

    it('does not advance a job cancelled before its period ended', () => {
      const clock = fakeClock();
      const store = createScanJobStore({ now: clock.now, phaseDurationMs: 1000 });

      clock.tick(500);
      expect(store.cancel('2810017')).toBe('done');
      clock.tick(5000);

      expect(store.get('2810017')?.status).toBe('Cancel');
    });

    it('refuses to cancel a reservation whose period has run out', () => {
      const clock = fakeClock();
      const store = createScanJobStore({ now: clock.now, phaseDurationMs: 1000 });

      clock.tick(1000);

      expect(store.cancel('2810017')).toBe('wrong-phase');
    });

    it('refuses a duration that is not positive', () => {
      expect(() => createScanJobStore({ now: Date.now, phaseDurationMs: 0 })).toThrow(
        /phaseDurationMs/,
      );
    });
  });
});

describe('emulator with timed phases', () => {
  const clock = fakeClock();
  const emulator = emulatorForSuite({ now: clock.now, phaseDurationMs: 60_000 });

  it('shows jobs moving on in the list as the gateway clock passes each period', async () => {
    const search = async () => {
      const response = await signedFetch(emulator, 'POST', '/api/v1/jobs/search', {
        body: JSON.stringify({ statusCode: 2, limit: 50 }),
        contentType: 'application/json',
        timestamp: String(clock.now()),
      });
      return ((await json(response)) as { resources: { total_cnt: number } }).resources.total_cnt;
    };

    expect(await search()).toBe(9);
    clock.tick(60_000);
    expect(await search()).toBe(0);
    expect(emulator.scanJobs.get('2810017')?.status).toBe('Progress');
  });
});
