/**
 * The queue's part of settling a message the consumer does not simply finish: **later** (it goes
 * back to the queue and comes again after a delay: the queue's visibility of that message), or
 * **dead-letter** (it goes to the dead-letter queue with the reason, where an operator sees it:
 * the queue's part of parking a delivery, decision.ts). Deployed, both are SQS calls; locally,
 * where no queue runs, they are log lines.
 */
import {
  ChangeMessageVisibilityCommand,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { Logger } from '../core/log.ts';
import { stackQueueClient } from './queue.ts';

/** A message as the consumer received it. */
export interface QueuedMessage {
  readonly id: string;
  readonly body: string;
  /** SQS's handle of this receive, to change the message's visibility. */
  readonly receiptHandle?: string;
  readonly groupId?: string;
  /** Set when the message was parked before and an operator redrove it. */
  readonly parkedReason?: string;
  readonly receiveCount?: number;
}

/** The message attribute that carries a parked message's reason (and marks a redrive). */
export const PARKED_REASON_ATTRIBUTE = 'parkedReason';

/** How messages are settled; `log` is the invocation's own logger (its request id). */
export interface Settlement {
  /** The message comes again after `seconds` (it is also reported as a batch item failure). */
  later(message: QueuedMessage, seconds: number, log: Logger): Promise<void>;
  /**
   * The message goes to the dead-letter queue with its reason (its part of parking the
   * delivery). Throws when it could not.
   */
  deadLetter(message: QueuedMessage, reason: string, log: Logger): Promise<void>;
}

interface SqsSettlementOptions {
  readonly queueUrl: string;
  readonly deadLetterQueueUrl: string;
  readonly client?: () => SQSClient;
}

/** SQS's largest visibility timeout: 12 hours. */
const MAX_VISIBILITY_SECONDS = 12 * 60 * 60;

export function sqsSettlement(options: SqsSettlementOptions): Settlement {
  let client: SQSClient | undefined;
  const sqs = () => {
    client ??= (options.client ?? stackQueueClient)();
    return client;
  };
  return {
    async later(message, seconds, log) {
      if (!message.receiptHandle) return;
      try {
        await sqs().send(
          new ChangeMessageVisibilityCommand({
            QueueUrl: options.queueUrl,
            ReceiptHandle: message.receiptHandle,
            VisibilityTimeout: Math.min(Math.max(Math.ceil(seconds), 0), MAX_VISIBILITY_SECONDS),
          }),
        );
      } catch (error) {
        // It comes back anyway, after the queue's own visibility timeout.
        log.warn('could not set when the message comes again', {
          messageId: message.id,
          errorName: (error as Error).name,
        });
      }
    },
    async deadLetter(message, reason) {
      await sqs().send(
        new SendMessageCommand({
          QueueUrl: options.deadLetterQueueUrl,
          MessageBody: message.body,
          MessageGroupId: message.groupId ?? message.id,
          // A second try to park the same receive is one message.
          MessageDeduplicationId: `parked:${message.id}`,
          MessageAttributes: {
            [PARKED_REASON_ATTRIBUTE]: { DataType: 'String', StringValue: reason.slice(0, 1000) },
            parkedAt: { DataType: 'String', StringValue: new Date().toISOString() },
          },
        }),
      );
    },
  };
}

/** Locally: nothing comes again and nothing is kept; both are said in the log. */
export function logSettlement(): Settlement {
  return {
    async later(message, seconds, log) {
      log.warn('invocation not run; locally there is no queue to retry it', {
        messageId: message.id,
        retryInSeconds: seconds,
      });
    },
    async deadLetter(message, reason, log) {
      log.error('invocation parked; locally there is no dead-letter queue', {
        messageId: message.id,
        reason,
      });
    },
  };
}
