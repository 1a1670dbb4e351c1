/**
 * The rules every delivery ledger keeps, as one suite run against each implementation and store
 * (memory, dynalite, moto): one claim wins, completed keys are duplicates, released keys are
 * tried again and counted, parked keys run nothing unless redriven, lapsed leases are taken over
 * and said to be, expired records count as absent.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { DeliveryLedger } from '../../lib/webhooks/ledger.ts';

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
    const claim = (key = 'demo:msg_1', lease = 2 * MINUTE, keep = 20 * MINUTE, redrive = false) =>
      ledger.claim({
        key,
        rememberUntilMs: clock.now + keep,
        leaseUntilMs: clock.now + lease,
        redrive,
      });
    const claimed = async (key?: string) => {
      const result = await claim(key);
      if (result.outcome !== 'claimed') throw new Error(`expected a claim, got ${result.outcome}`);
      return result;
    };
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

    it('hands a released claim to the next copy, counting the attempts', async () => {
      const first = await claimed();
      expect(first).toMatchObject({ attempt: 1, lapsed: false });
      await ledger.release('demo:msg_1', first.token);
      const second = await claimed();
      expect(second).toMatchObject({ attempt: 2, lapsed: false });
      await ledger.release('demo:msg_1', second.token);
      expect(await claimed()).toMatchObject({ attempt: 3 });
    });

    it('runs nothing for a parked key, unless the parked message is redriven', async () => {
      const first = await claimed();
      await ledger.release('demo:msg_1', first.token);
      const second = await claimed();
      await ledger.park('demo:msg_1', second.token, {
        reason: 'unknown: timed out',
        messageId: 'm-1',
        rememberUntilMs: clock.now + 60 * MINUTE,
      });
      expect(await claim()).toEqual({
        outcome: 'parked',
        reason: 'unknown: timed out',
        messageId: 'm-1',
      });
      const redriven = await claim('demo:msg_1', 2 * MINUTE, 20 * MINUTE, true);
      expect(redriven).toMatchObject({ outcome: 'claimed', attempt: 1, lapsed: false });
    });

    it("ignores complete, release and park with another claim's token", async () => {
      await claimed();
      await ledger.release('demo:msg_1', 'not-the-token');
      await ledger.complete('demo:msg_1', 'not-the-token', clock.now + MINUTE);
      await ledger.park('demo:msg_1', 'not-the-token', {
        reason: 'x',
        messageId: 'm',
        rememberUntilMs: clock.now + MINUTE,
      });
      expect((await claim()).outcome).toBe('running');
    });

    it('takes over a running claim whose lease lapsed (its consumer stopped), and says so', async () => {
      expect(await claimed()).toMatchObject({ attempt: 1, lapsed: false });
      clock.now += 2 * MINUTE + 1;
      expect(await claimed()).toMatchObject({ attempt: 2, lapsed: true });
    });

    it('treats a record past its expiry as absent, before any TTL deletion', async () => {
      const first = await claimed();
      await ledger.complete('demo:msg_1', first.token, clock.now + 20 * MINUTE);
      clock.now += 20 * MINUTE - 1000;
      expect((await claim()).outcome).toBe('done');
      clock.now += 2000;
      expect(await claimed()).toMatchObject({ attempt: 1, lapsed: false });
    });
  });
}
