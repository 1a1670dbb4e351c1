/**
 * Where the webhook receiver sends its deliveries:
 *
 * - SQS (INVOCATION_QUEUE_URL, deployed; this module): a FIFO queue in high-throughput mode.
 *   MessageDeduplicationId is the delivery's key, so SQS itself drops a copy sent within 5 minutes.
 *   The delivery ledger covers every later copy. MessageGroupId is the delivery's own key, so each
 *   delivery stands alone, and one that keeps failing never holds another back. A webhook that asks
 *   for its deliveries in order (`"ordered": true`) uses its name as the group instead. Params too
 *   large for a message go to the body store, and the message carries their key.
 * - In process (local runs only, with no SQS; in-process-queue.ts): the consumer's own code runs
 *   the message right after the receiver has responded.
 */
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { requiredSetting } from '../core/deployed-settings.ts';
import { UnexpectedError } from '../core/errors.ts';
import { perRuntime } from '../core/per-runtime.ts';
import type { Runtime } from '../runtime.ts';
import { type BodyStore, bodyStoreOf } from './body-store.ts';
import { type Invocation, MAX_INLINE_MESSAGE_BYTES } from './invocation.ts';

/**
 * The SQS client of the stack's queues. It sends to the endpoint the SDK resolves for the
 * function's region, which honours AWS_ENDPOINT_URL (a stand-in such as moto). Otherwise the SDK
 * would prefer the host a queue's URL names, and ignore AWS_ENDPOINT_URL. On AWS both are the
 * region's SQS endpoint, since the queues are the stack's.
 */
export function stackQueueClient(): SQSClient {
  return new SQSClient({ useQueueUrlAsEndpoint: false });
}

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

  private readonly options: SqsInvocationQueueOptions;

  constructor(options: SqsInvocationQueueOptions) {
    this.options = options;
  }

  async enqueue(invocation: Invocation, options: EnqueueOptions): Promise<void> {
    this.client ??= (this.options.client ?? stackQueueClient)();
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

/** The container's invocation queue, as the deployed receiver hands deliveries to it. */
export const sqsInvocationQueueOf = perRuntime(
  (runtime: Runtime) =>
    new SqsInvocationQueue({
      queueUrl: requiredSetting(runtime.config.invocationQueueUrl, 'INVOCATION_QUEUE_URL'),
      bodies: bodyStoreOf(runtime),
    }),
);
