import { describe, expect, it } from 'vitest';
import {
  DEDUPLICATION_WINDOW_MS,
  InProcessInvocationQueue,
  OnceOnlyStore,
} from '../../../lib/invocationQueue.js';
import type { InvocationOutcome } from '../../../lib/invocations.js';
import { createLogger } from '../../../lib/log.js';

describe('OnceOnlyStore', () => {
  it('lets a key through once within the window, and again after it', () => {
    let now = 1_000_000;
    const store = new OnceOnlyStore(DEDUPLICATION_WINDOW_MS, () => now);
    expect(store.claim('a')).toBe(true);
    expect(store.claim('a')).toBe(false);
    expect(store.claim('b')).toBe(true);
    now += DEDUPLICATION_WINDOW_MS - 1;
    expect(store.claim('a')).toBe(false);
    now += 1;
    expect(store.claim('a')).toBe(true);
    expect(store.claim('b')).toBe(true);
  });
});

describe('InProcessInvocationQueue', () => {
  function queue(run: (body: string) => Promise<InvocationOutcome>) {
    const lines: string[] = [];
    const log = createLogger({}, (line) => lines.push(line));
    return { queue: new InProcessInvocationQueue({ run, log }), lines };
  }

  it('runs a message after enqueue returns, once per deduplication id', async () => {
    const ran: string[] = [];
    const { queue: q } = queue(async (body) => {
      ran.push(body);
      return { outcome: 'succeeded', status: 200 };
    });
    const options = { deduplicationId: 'demo:1', groupId: 'demo' };
    const first = await q.enqueue({ action: 'hello', params: { n: 1 } }, options);
    // Handed over, not yet run: the receiver answers first.
    expect(ran).toEqual([]);
    const second = await q.enqueue({ action: 'hello', params: { n: 2 } }, options);
    expect([first.duplicate, second.duplicate]).toEqual([false, true]);
    await q.idle();
    expect(ran.map((body) => JSON.parse(body))).toEqual([{ action: 'hello', params: { n: 1 } }]);
  });

  it('logs a message whose run crashed and keeps going', async () => {
    const { queue: q, lines } = queue(async () => {
      throw new Error('crashed');
    });
    await q.enqueue({ action: 'hello' }, { deduplicationId: 'x', groupId: 'g' });
    await q.idle();
    expect(lines.map((line) => JSON.parse(line))).toEqual([
      expect.objectContaining({
        level: 'error',
        message: 'invocation crashed',
        errorMessage: 'crashed',
      }),
    ]);
  });
});
