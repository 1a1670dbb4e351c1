/**
 * Where the webhook receiver hands its deliveries (setup.ts chooses):
 *
 * - SQS (INVOCATION_QUEUE_URL set; required when deployed): a FIFO queue in its high-throughput
 *   mode. MessageDeduplicationId is the delivery's key, so SQS itself drops a copy sent within
 *   its 5-minute deduplication interval; the delivery ledger covers every later copy.
 *   MessageGroupId is the delivery's own key, so that each delivery stands alone and one that
 *   keeps failing never holds another back, or the webhook's name for a webhook that asks for
 *   its deliveries in order (`"ordered": true`). Params too large for a message go to the body
 *   store and the message carries their key.
 * - In process (local runs only, where no SQS runs): the consumer's own code runs the message
 *   right after the receiver has answered. There is no retry and no dead-letter queue locally:
 *   what would be retried or parked is logged.
 */
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { UnexpectedError } from '../core/errors.js';
import { describeError, type Logger } from '../core/log.js';
import type { BodyStore } from './body-store.js';
import { type Invocation, MAX_INLINE_MESSAGE_BYTES } from './invocation.js';

interface EnqueueOptions {
  /** SQS drops a second message with this id within its 5-minute deduplication interval. */
  readonly deduplicationId: string;
  /** Messages of one group run in order, one after another. */
  readonly groupId: string;
}

export interface InvocationQueue {
  enqueue(invocation: Invocation, options: EnqueueOptions): Promise<void>;
}

interface SqsInvocationQueueOptions {
  readonly queueUrl: string;
  /** Where params too large for a message go; without one, such a delivery is refused. */
  readonly bodies?: BodyStore;
  /** Builds the client on first use. */
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
          MessageBody: await this.messageOf(invocation, options.deduplicationId),
          MessageDeduplicationId: options.deduplicationId,
          MessageGroupId: options.groupId,
        }),
      );
    } catch (error) {
      // The sender gets a 500 and delivers again later; the ledger keeps that to one run.
      throw new UnexpectedError(error);
    }
  }

  /** The message's text: the invocation itself, or with its params in the body store. */
  private async messageOf(invocation: Invocation, key: string): Promise<string> {
    const text = JSON.stringify(invocation);
    if (Buffer.byteLength(text, 'utf8') <= MAX_INLINE_MESSAGE_BYTES) return text;
    if (!this.options.bodies) throw new Error('No body store for a delivery this large');
    const paramsRef = await this.options.bodies.put(key, JSON.stringify(invocation.params ?? {}));
    return JSON.stringify({ ...invocation, params: {}, paramsRef });
  }
}

interface InProcessInvocationQueueOptions {
  /** Runs one message body: the consumer's code. */
  readonly run: (body: string) => Promise<unknown>;
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
