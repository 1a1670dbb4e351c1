/**
 * The webhook pipeline of a container, wired once for the receiver and the consumer alike: the
 * consumer's dependencies (the execution client, the delivery ledger, how it settles messages,
 * the body store), and the queue the receiver hands deliveries to.
 *
 * Deployed, every part is required (a missing setting fails the function's init, naming the
 * variable): the SQS queue and its dead-letter queue, the ledger table, the body bucket. The
 * in-process queue and the in-memory ledger are for local runs only: in Lambda nothing runs
 * after the response, and memory does not outlive a container.
 */
import { requiredSetting } from '../core/config.js';
import { perRuntime } from '../core/per-runtime.js';
import { executionClientOf } from '../execution/client.js';
import type { Runtime } from '../runtime.js';
import { type BodyStore, s3BodyStore } from './body-store.js';
import { type ConsumerDeps, processMessage } from './consumer.js';
import { type DeliveryLedger, dynamoDbDeliveryLedger, memoryDeliveryLedger } from './ledger.js';
import { InProcessInvocationQueue, type InvocationQueue, SqsInvocationQueue } from './queue.js';
import { logSettlement, type Settlement, sqsSettlement } from './settlement.js';

/** A setting that is required when deployed and optional locally. */
function deployedSetting<T>(runtime: Runtime, value: T | undefined, name: string): T | undefined {
  return runtime.config.deployed ? requiredSetting(value, name) : value;
}

/**
 * The container's delivery ledger: the DynamoDB table (DELIVERY_LEDGER_TABLE: deployed, and
 * under `npm start`), else this process's memory (`serverless invoke local`, tests).
 */
export const deliveryLedgerOf = perRuntime((runtime: Runtime): DeliveryLedger => {
  const table = deployedSetting(
    runtime,
    runtime.config.deliveryLedgerTable,
    'DELIVERY_LEDGER_TABLE',
  );
  if (table) return dynamoDbDeliveryLedger({ tableName: table, now: runtime.now });
  runtime.log.warn('no DELIVERY_LEDGER_TABLE: queued invocations are deduplicated in memory only');
  return memoryDeliveryLedger(runtime.now);
});

const bodyStoreOf = perRuntime((runtime: Runtime): BodyStore | undefined => {
  const bucket = deployedSetting(
    runtime,
    runtime.config.deliveryBodyBucket,
    'DELIVERY_BODY_BUCKET',
  );
  return bucket ? s3BodyStore({ bucket }) : undefined;
});

function settlementOf(runtime: Runtime, log: Runtime['log']): Settlement {
  const { config } = runtime;
  const queueUrl = deployedSetting(runtime, config.invocationQueueUrl, 'INVOCATION_QUEUE_URL');
  const deadLetterQueueUrl = deployedSetting(
    runtime,
    config.invocationDeadLetterQueueUrl,
    'INVOCATION_DEAD_LETTER_QUEUE_URL',
  );
  if (queueUrl && deadLetterQueueUrl) return sqsSettlement({ queueUrl, deadLetterQueueUrl, log });
  return logSettlement(log);
}

/** What the consumer's code needs, in the consumer function and in the in-process queue. */
export const consumerDepsOf = perRuntime((runtime: Runtime): ConsumerDeps => {
  const log = runtime.log.child({ function: 'consumeInvocations' });
  return {
    execution: executionClientOf(runtime),
    // Read only where the webhooks share the actions' secret (the receiver's alone otherwise).
    webhooks: runtime.sameSecret('webhooks', 'execution')
      ? runtime.secretsFor('webhooks')
      : undefined,
    ledger: deliveryLedgerOf(runtime),
    settlement: settlementOf(runtime, log),
    bodies: bodyStoreOf(runtime),
    log,
    now: runtime.now,
    memoryMs: runtime.config.deliveryMemoryMs,
    maxAttempts: runtime.config.invocationMaxAttempts,
    retrySeconds: runtime.config.invocationRetrySeconds,
    maxReceives: runtime.config.invocationMaxReceives,
  };
});

/** The container's invocation queue, as the receiver sees it. */
export const invocationQueueOf = perRuntime((runtime: Runtime): InvocationQueue => {
  const queueUrl = deployedSetting(
    runtime,
    runtime.config.invocationQueueUrl,
    'INVOCATION_QUEUE_URL',
  );
  if (queueUrl) return new SqsInvocationQueue({ queueUrl, bodies: bodyStoreOf(runtime) });
  const deps = consumerDepsOf(runtime);
  return new InProcessInvocationQueue({ log: deps.log, run: (body) => processMessage(body, deps) });
});
