/**
 * Where the webhook receiver hands its deliveries. Two implementations, chosen by
 * configuration:
 *
 * - SQS (INVOCATION_QUEUE_URL set, when deployed): a FIFO queue. MessageDeduplicationId is the
 *   delivery's key, so SQS itself drops a copy sent within its 5-minute deduplication interval;
 *   the delivery ledger, where the consumer claims each delivery before running it, covers the
 *   rest of the acceptance window and redeliveries. MessageGroupId is the webhook's name: one
 *   webhook's deliveries run in order.
 * - In process (unset, local runs, where no SQS runs): the consumer's own code runs the message
 *   right after the receiver has answered, claiming it in the same ledger. There is no retry
 *   and no dead-letter queue locally: a failure is logged. (In Lambda nothing runs after the
 *   response, which is why a deployed receiver needs the queue.)
 */
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { UnexpectedError } from '../core/errors.js';
import { describeError, type Logger } from '../core/log.js';
import type { Invocation, InvocationOutcome } from './consumer.js';

interface EnqueueOptions {
  /** SQS drops a second message with this id within its 5-minute deduplication interval. */
  readonly deduplicationId: string;
  /** Messages of one group run in order. */
  readonly groupId: string;
}

export interface InvocationQueue {
  enqueue(invocation: Invocation, options: EnqueueOptions): Promise<void>;
}

interface SqsInvocationQueueOptions {
  readonly queueUrl: string;
  /** Builds the client on first use (cold starts that never enqueue do not pay for it). */
  readonly client?: () => SQSClient;
}

export class SqsInvocationQueue implements InvocationQueue {
  private client: SQSClient | undefined;

  constructor(private readonly options: SqsInvocationQueueOptions) {}

  async enqueue(invocation: Invocation, options: EnqueueOptions): Promise<void> {
    this.client ??= (this.options.client ?? (() => new SQSClient({})))();
    try {
      await this.client.send(
        new SendMessageCommand({
          QueueUrl: this.options.queueUrl,
          MessageBody: JSON.stringify(invocation),
          MessageDeduplicationId: options.deduplicationId,
          MessageGroupId: options.groupId,
        }),
      );
    } catch (error) {
      // The sender gets a 500 and delivers again later; the FIFO key keeps that to one run.
      throw new UnexpectedError(error);
    }
  }
}

interface InProcessInvocationQueueOptions {
  /** Runs one message body: the consumer's code. */
  readonly run: (body: string) => Promise<InvocationOutcome>;
  readonly log: Logger;
}

export class InProcessInvocationQueue implements InvocationQueue {
  private readonly pending = new Set<Promise<void>>();

  constructor(private readonly options: InProcessInvocationQueueOptions) {}

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
