/**
 * The delivery ledger: when a key may be forgotten, and the in-memory ledger held to the rules
 * every ledger keeps (the DynamoDB one: dynamo-ledger.test.ts).
 */
import { describe, expect, it } from 'vitest';
import {
  ACCEPTANCE_WINDOW_MS,
  DEFAULT_MEMORY_MS,
  memoryDeliveryLedger,
  rememberUntil,
} from '../../../../lib/webhooks/ledger.ts';
import { describeLedgerRules, type LedgerClock } from '../../../helpers/delivery-ledger-rules.ts';

const MINUTE = 60_000;

describe('rememberUntil', () => {
  it('keeps a key for the memory after the last moment a copy can arrive', () => {
    const now = 1_000_000_000_000;
    // Stamped 290 s in the future: a copy may still arrive until t + 5 min.
    expect(rememberUntil(now + 290_000, now)).toBe(
      now + 290_000 + ACCEPTANCE_WINDOW_MS + DEFAULT_MEMORY_MS,
    );
    // Stamped long ago (an old message redelivered, a sender retrying for days): from now.
    expect(rememberUntil(now - 60 * MINUTE, now)).toBe(now + DEFAULT_MEMORY_MS);
    expect(DEFAULT_MEMORY_MS).toBe(4 * 24 * 60 * MINUTE);
    expect(rememberUntil(now, now, MINUTE)).toBe(now + ACCEPTANCE_WINDOW_MS + MINUTE);
  });
});

const clock: LedgerClock = { now: 0 };

describeLedgerRules('in memory', clock, async () => memoryDeliveryLedger(() => clock.now));
