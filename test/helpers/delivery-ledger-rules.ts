/**
 * The rules every delivery ledger keeps, as one suite run against each implementation and store
 * (memory, dynalite, moto): one claim wins, completed keys are duplicates, released keys run again,
 * lapsed leases are taken over, expired records count as absent.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { DeliveryLedger } from '../../lib/webhooks/ledger.js';

const MINUTE = 60_000;

/** A clock the suite moves; the ledger under test must read it. */
export interface LedgerClock {
  now: number;
}

export function describeLedgerRules(
  name: string,
  clock: LedgerClock,
  create: () => Promise<DeliveryLedger>,
  /** False for a store whose conditional writes are not atomic under concurrency (moto). */
  atomicWrites = true,
): void {
  describe(`the delivery ledger ${name}`, () => {
    let ledger: DeliveryLedger;
    const claim = (key = 'demo:msg_1', lease = 2 * MINUTE, keep = 20 * MINUTE) =>
      ledger.claim({ key, rememberUntilMs: clock.now + keep, leaseUntilMs: clock.now + lease });
    beforeEach(async () => {
      clock.now = 1_800_000_000_000;
      ledger = await create();
    });

    it('lets one claim win; a completed key is a duplicate, a running one is busy', async () => {
      const first = await claim();
      expect(first.outcome).toBe('claimed');
      expect((await claim()).outcome).toBe('running');
      expect((await claim('demo:other')).outcome).toBe('claimed');
      if (first.outcome !== 'claimed') throw new Error('unreachable');
      await ledger.complete('demo:msg_1', first.token, clock.now + 20 * MINUTE);
      expect((await claim()).outcome).toBe('done');
    });

    it.runIf(atomicWrites)('lets exactly one of many concurrent claims win', async () => {
      const results = await Promise.all(Array.from({ length: 20 }, () => claim()));
      expect(results.filter((r) => r.outcome === 'claimed')).toHaveLength(1);
    });

    it('forgets a released claim, so that a retry runs the delivery', async () => {
      const first = await claim();
      if (first.outcome !== 'claimed') throw new Error('expected a claim');
      await ledger.release('demo:msg_1', first.token);
      expect((await claim()).outcome).toBe('claimed');
    });

    it("ignores complete and release with another claim's token", async () => {
      const first = await claim();
      if (first.outcome !== 'claimed') throw new Error('expected a claim');
      await ledger.release('demo:msg_1', 'not-the-token');
      await ledger.complete('demo:msg_1', 'not-the-token', clock.now + MINUTE);
      expect((await claim()).outcome).toBe('running');
    });

    it('takes over a running claim whose lease lapsed (its consumer died)', async () => {
      expect((await claim()).outcome).toBe('claimed');
      clock.now += 2 * MINUTE + 1;
      expect((await claim()).outcome).toBe('claimed');
    });

    it('treats a record past its expiry as absent, before any TTL deletion', async () => {
      const first = await claim('demo:msg_1', MINUTE, 20 * MINUTE);
      if (first.outcome !== 'claimed') throw new Error('expected a claim');
      await ledger.complete('demo:msg_1', first.token, clock.now + 20 * MINUTE);
      clock.now += 20 * MINUTE - 1000;
      expect((await claim()).outcome).toBe('done');
      clock.now += 2000;
      expect((await claim()).outcome).toBe('claimed');
    });
  });
}
