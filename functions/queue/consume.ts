/**
 * The invocation queue's consumer: an SQS-triggered function that runs
 * queued invocations and reports partial batch failures (ReportBatchItemFailures), so that
 * only the failed messages come back; after maxReceiveCount receives SQS moves a message to
 * the dead-letter queue. The rules per message are in lib/webhooks/consumer.ts, per batch in
 * lib/webhooks/batch.ts. Each batch has its own call context: its log lines carry its request
 * id, and its metrics ride on its closing line.
 */
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { callContextOf } from '../../lib/core/call-context.ts';
import { logWithMetrics } from '../../lib/core/log.ts';
import { getRuntime } from '../../lib/runtime.ts';
import { consumeBatch } from '../../lib/webhooks/batch.ts';
import { CONSUMER_FUNCTION } from '../../lib/webhooks/consumer.ts';
import { consumerDepsOf } from '../../lib/webhooks/setup.ts';

const deps = consumerDepsOf(getRuntime());

export const handler = middy<SQSEvent, SQSBatchResponse, Error, Context>({
  // Each upstream call is bounded by the function's remaining time (lib/upstream/client.ts).
  timeoutEarlyInMillis: 0,
}).handler(async (event, context) => {
  const call = callContextOf(context, deps.log.child({ requestId: context.awsRequestId }));
  const result = await consumeBatch(event, deps, call);
  const fields = { messages: event.Records.length, failed: result.batchItemFailures.length };
  logWithMetrics(call.log, 'info', 'batch', fields, call.metrics.take(CONSUMER_FUNCTION));
  return result;
});
