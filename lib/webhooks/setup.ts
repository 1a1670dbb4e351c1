/**
 * The consumer's side of the webhook pipeline, wired once for the consumer function and for the
 * receiver of local runs, which runs the consumer's code in process: the execution client, the
 * delivery ledger, how messages are settled, the body store. (The deployed receiver's queue is
 * queue.ts's: its bundle carries none of this.)
 *
 * Deployed, every part is required (a missing setting fails the function's init, naming the
 * variable): the SQS queue and its dead-letter queue, the ledger table, the body bucket. The
 * in-process queue and the in-memory ledger are for local runs only: in Lambda nothing runs
 * after the response, and memory does not outlive a container.
 */
import { deployedSetting } from '../core/deployed-settings.ts';
import { perRuntime } from '../core/per-runtime.ts';
import { executionClientOf } from '../execution/client.ts';
import type { Runtime } from '../runtime.ts';
import { accountRecorder } from '../usage/record.ts';
import { usageGateOf } from '../usage/setup.ts';
import { bodyStoreOf } from './body-store.ts';
import { CONSUMER_FUNCTION, type ConsumerDeps, processMessage } from './consumer.ts';
import { dynamoDbDeliveryLedger } from './dynamo-ledger.ts';
import { InProcessInvocationQueue } from './in-process-queue.ts';
import { type DeliveryLedger, memoryDeliveryLedger } from './ledger.ts';
import { logSettlement, type Settlement, sqsSettlement } from './settlement.ts';

/**
 * The container's delivery ledger: the DynamoDB table (DELIVERY_LEDGER_TABLE: deployed, and
 * under `npm start`), else this process's memory (`serverless invoke local`, tests).
 */
const deliveryLedgerOf = perRuntime((runtime: Runtime): DeliveryLedger => {
  const table = deployedSetting(
    runtime.config,
    runtime.config.deliveryLedgerTable,
    'DELIVERY_LEDGER_TABLE',
  );
  if (table) return dynamoDbDeliveryLedger({ tableName: table, now: runtime.now });
  runtime.log.warn('no DELIVERY_LEDGER_TABLE: queued invocations are deduplicated in memory only');
  return memoryDeliveryLedger(runtime.now);
});

function settlementOf(runtime: Runtime): Settlement {
  const { config } = runtime;
  const queueUrl = deployedSetting(config, config.invocationQueueUrl, 'INVOCATION_QUEUE_URL');
  const deadLetterQueueUrl = deployedSetting(
    config,
    config.invocationDeadLetterQueueUrl,
    'INVOCATION_DEAD_LETTER_QUEUE_URL',
  );
  if (queueUrl && deadLetterQueueUrl) return sqsSettlement({ queueUrl, deadLetterQueueUrl });
  return logSettlement();
}

/** What the consumer's code needs, in the consumer function and in the in-process queue. */
export const consumerDepsOf = perRuntime((runtime: Runtime): ConsumerDeps => {
  const log = runtime.log.child({ function: CONSUMER_FUNCTION });
  return {
    execution: executionClientOf(runtime),
    // Read only where the webhooks share the actions' secret (the receiver's alone otherwise).
    webhooks: runtime.sameSecret('webhooks', 'execution')
      ? runtime.secretsFor('webhooks')
      : undefined,
    ledger: deliveryLedgerOf(runtime),
    settlement: settlementOf(runtime),
    bodies: bodyStoreOf(runtime),
    log,
    now: runtime.now,
    memoryMs: runtime.config.deliveryMemoryMs,
    maxAttempts: runtime.config.invocationMaxAttempts,
    retrySeconds: runtime.config.invocationRetrySeconds,
    maxReceives: runtime.config.invocationMaxReceives,
    usage: accountRecorder(usageGateOf(runtime)),
  };
});

/**
 * The invocation queue of local runs: the consumer's code, in this process. Marked pure, so that
 * the consumer function's bundle, which never calls it, leaves it out (and the in-process queue
 * with it).
 */
export const inProcessInvocationQueueOf = /* @__PURE__ */ perRuntime((runtime: Runtime) => {
  const deps = consumerDepsOf(runtime);
  return new InProcessInvocationQueue({ log: deps.log, run: (body) => processMessage(body, deps) });
});
