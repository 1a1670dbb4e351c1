import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../../lib/core/log.ts';
import { InProcessInvocationQueue } from '../../../../lib/webhooks/in-process-queue.ts';

describe('InProcessInvocationQueue', () => {
  function queue(run: (body: string) => Promise<unknown>) {
    const lines: string[] = [];
    const log = createLogger({}, (line) => lines.push(line));
    return { queue: new InProcessInvocationQueue({ run, log }), lines };
  }

  it('runs each message after enqueue returns (the receiver answers first)', async () => {
    const ran: string[] = [];
    const { queue: q } = queue(async (body) => {
      ran.push(body);
    });
    await q.enqueue({ action: 'hello', params: { n: 1 } });
    expect(ran).toEqual([]);
    await q.enqueue({ action: 'hello', params: { n: 2 } });
    await q.idle();
    // Once-only is the ledger's job, in the consumer's code: the queue hands over every copy.
    expect(ran.map((body) => JSON.parse(body))).toEqual([
      { action: 'hello', params: { n: 1 } },
      { action: 'hello', params: { n: 2 } },
    ]);
  });

  it('logs a message whose run crashed and keeps going', async () => {
    const { queue: q, lines } = queue(async () => {
      throw new Error('crashed');
    });
    await q.enqueue({ action: 'hello' });
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
