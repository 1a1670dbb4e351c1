/**
 * The invocation queue of local runs, where no SQS runs: the consumer's own code runs each
 * message right after the receiver has answered (`functions/webhooks/receive-local.ts`). There
 * is no retry and no dead-letter queue locally: what would come back later or be parked is
 * logged. (In Lambda nothing runs after the response, which is why a deployed receiver hands
 * its deliveries to SQS; this module is not in its bundle.)
 */
import { describeError, type Logger } from '../core/log.ts';
import type { Invocation } from './invocation.ts';
import type { InvocationQueue } from './queue.ts';

interface InProcessInvocationQueueOptions {
  /** Runs one message body: the consumer's code. */
  readonly run: (body: string) => Promise<unknown>;
  readonly log: Logger;
}

export class InProcessInvocationQueue implements InvocationQueue {
  private readonly pending = new Set<Promise<void>>();

  private readonly options: InProcessInvocationQueueOptions;

  constructor(options: InProcessInvocationQueueOptions) {
    this.options = options;
  }

  async enqueue(invocation: Invocation): Promise<void> {
    // Serialised as SQS would carry it, so the consumer's parsing runs on the same text.
    const body = JSON.stringify(invocation);
    const task = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.options.run(body))
      .then(
        () => undefined,
        (error: unknown) => this.options.log.error('invocation crashed', describeError(error)),
      )
      .finally(() => this.pending.delete(task));
    this.pending.add(task);
  }

  /** Resolves when every handed-over message has run (tests, graceful stops). */
  async idle(): Promise<void> {
    while (this.pending.size > 0) await Promise.all(this.pending);
  }
}
