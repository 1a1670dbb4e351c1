/**
 * The invocation queue's consumer: an SQS-triggered function that runs
 * queued invocations and reports partial batch failures (ReportBatchItemFailures), so that
 * only the failed messages come back; after maxReceiveCount receives SQS moves a message to
 * the dead-letter queue. The rules per message are in lib/webhooks/consumer.ts, per batch in
 * lib/webhooks/batch.ts.
 */
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { defaultSink } from '../../lib/core/log.js';
import { flushMetrics } from '../../lib/core/metrics.js';
import { timeBudgetOf } from '../../lib/core/time-budget.js';
import { getRuntime } from '../../lib/runtime.js';
import { consumeBatch } from '../../lib/webhooks/batch.js';
import { consumerDepsOf } from '../../lib/webhooks/setup.js';

const deps = consumerDepsOf(getRuntime());

export const handler = middy<SQSEvent, SQSBatchResponse, Error, Context>({
  // Each upstream call is bounded by the function's remaining time (lib/upstream/client.ts).
  timeoutEarlyInMillis: 0,
}).handler(async (event, context) => {
  const batchLog = deps.log.child({ requestId: context.awsRequestId });
  const result = await consumeBatch(event, { ...deps, log: batchLog }, timeBudgetOf(context));
  batchLog.info('batch', {
    messages: event.Records.length,
    failed: result.batchItemFailures.length,
  });
  flushMetrics('consumeInvocations', defaultSink);
  return result;
});
