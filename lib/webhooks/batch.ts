/**
 * An SQS batch of queued invocations, run by the consumer function. Messages of one group run
 * in order (a webhook that asks for order); every other message is its own group, so one that
 * keeps failing never holds another back. Each message is handled by consumer.ts.
 */
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { CallContext } from '../core/call-context.ts';
import { ACTION_WAIT_MS } from './action.ts';
import { type ConsumerDeps, handleMessage } from './consumer.ts';
import { PARKED_REASON_ATTRIBUTE, type QueuedMessage } from './settlement.ts';

/**
 * Runs an SQS batch and reports the messages to return to the queue (ReportBatchItemFailures:
 * only those come back). Groups run side by side; the messages of one group in order, and once
 * one comes back later the rest of its group comes back with it, unrun. A message is only
 * started when the function's time left can cover the action (ACTION_WAIT_MS), except the
 * first of each group.
 */
export async function consumeBatch(
  event: SQSEvent,
  deps: ConsumerDeps,
  call: CallContext,
): Promise<SQSBatchResponse> {
  const failed = new Set<string>();
  await Promise.all(
    groupsOf(event.Records).map(async (records) => {
      /** Once one message of the group is not finished, when the rest comes back (now). */
      let heldBack: number | undefined;
      for (const [index, record] of records.entries()) {
        const message = messageOf(record);
        if (
          heldBack === undefined &&
          index > 0 &&
          (call.remainingMs?.() ?? Infinity) < ACTION_WAIT_MS
        ) {
          heldBack = 0;
        }
        if (heldBack !== undefined) {
          await deps.settlement.later(message, heldBack, call.log);
          failed.add(record.messageId);
          continue;
        }
        const result = await handleMessage(message, deps, call, {
          receiveCount: message.receiveCount,
        });
        if (result.settled !== 'later') continue;
        await deps.settlement.later(message, result.afterSeconds, call.log);
        failed.add(record.messageId);
        // The rest of its group comes back as soon as it can: a FIFO queue returns no message of
        // a group while one of it is out, so they follow it again, in order.
        heldBack = 0;
        if ((message.receiveCount ?? 0) >= (deps.maxReceives ?? Infinity)) {
          // Its last receive: SQS itself now moves it to the dead-letter queue.
          call.metrics.count('InvocationsToDeadLetterQueue', {});
        }
      }
    }),
  );
  return {
    batchItemFailures: event.Records.filter((r) => failed.has(r.messageId)).map((r) => ({
      itemIdentifier: r.messageId,
    })),
  };
}

function messageOf(record: SQSRecord): QueuedMessage {
  const count = Number(record.attributes.ApproximateReceiveCount);
  return {
    id: record.messageId,
    body: record.body,
    receiptHandle: record.receiptHandle,
    groupId: record.attributes.MessageGroupId,
    parkedReason: record.messageAttributes?.[PARKED_REASON_ATTRIBUTE]?.stringValue,
    receiveCount: Number.isFinite(count) ? count : undefined,
  };
}

function groupsOf(records: readonly SQSRecord[]): SQSRecord[][] {
  const groups = new Map<string, SQSRecord[]>();
  for (const record of records) {
    const key = record.attributes.MessageGroupId ?? `message:${record.messageId}`;
    const group = groups.get(key);
    if (group) group.push(record);
    else groups.set(key, [record]);
  }
  return [...groups.values()];
}
