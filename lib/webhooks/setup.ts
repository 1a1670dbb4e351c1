/**
 * The webhook pipeline of a container, wired once for the receiver and the consumer alike: the
 * consumer's dependencies (the execution client, the delivery ledger), and the queue the
 * receiver hands deliveries to.
 *
 * - SQS (INVOCATION_QUEUE_URL set, when deployed): the consumer function runs what arrives.
 * - In process (unset, local runs, where no SQS runs): the consumer's own code runs the message
 *   right after the receiver has answered, claiming it in the same ledger. There is no retry
 *   and no dead-letter queue locally: a failure is logged. (In Lambda nothing runs after the
 *   response, which is why a deployed receiver needs the queue.)
 */
import { perRuntime } from '../core/per-runtime.js';
import { executionClientOf } from '../execution/client.js';
import type { Runtime } from '../runtime.js';
import { type ConsumerDeps, processMessage } from './consumer.js';
import { type DeliveryLedger, dynamoDbDeliveryLedger, memoryDeliveryLedger } from './ledger.js';
import { InProcessInvocationQueue, type InvocationQueue, SqsInvocationQueue } from './queue.js';

/**
 * The container's delivery ledger: the DynamoDB table when DELIVERY_LEDGER_TABLE is set
 * (deployed, and under `npm start`), else this process's memory (`serverless invoke local`).
 */
export const deliveryLedgerOf = perRuntime((runtime: Runtime): DeliveryLedger => {
  const table = runtime.config.deliveryLedgerTable;
  if (table) return dynamoDbDeliveryLedger({ tableName: table, now: runtime.now });
  runtime.log.warn('no DELIVERY_LEDGER_TABLE: webhook deliveries are deduplicated in memory only');
  return memoryDeliveryLedger(runtime.now);
});

/** What the consumer's code needs, in the consumer function and in the in-process queue. */
export const consumerDepsOf = perRuntime(
  (runtime: Runtime): ConsumerDeps => ({
    execution: executionClientOf(runtime),
    ledger: deliveryLedgerOf(runtime),
    log: runtime.log.child({ function: 'consumeInvocations' }),
    now: runtime.now,
    maxReceives: runtime.config.invocationMaxReceives,
  }),
);

/** The container's invocation queue, as the receiver sees it. */
export const invocationQueueOf = perRuntime((runtime: Runtime): InvocationQueue => {
  const queueUrl = runtime.config.invocationQueueUrl;
  if (queueUrl) return new SqsInvocationQueue({ queueUrl });
  const deps = consumerDepsOf(runtime);
  return new InProcessInvocationQueue({
    log: deps.log,
    run: (body) => processMessage(body, deps),
  });
});
