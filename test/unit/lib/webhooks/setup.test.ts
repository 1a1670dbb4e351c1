import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../../lib/core/config.ts';
import { createLogger } from '../../../../lib/core/log.ts';
import { createRuntime } from '../../../../lib/runtime.ts';
import { InProcessInvocationQueue } from '../../../../lib/webhooks/in-process-queue.ts';
import { SqsInvocationQueue, sqsInvocationQueueOf } from '../../../../lib/webhooks/queue.ts';
import { consumerDepsOf, inProcessInvocationQueueOf } from '../../../../lib/webhooks/setup.ts';

/** A Lambda container's environment (neither serverless offline nor invoke local). */
const DEPLOYED = {
  AWS_LAMBDA_FUNCTION_NAME: 'platform-gateway-dev-receiveWebhook',
  SECRETS_SOURCE: 'file',
  SECRETS_FILE: 'emulator/demo-secret.json',
  SCAN_BASE_URL: 'https://wsc.apigw.example.com',
  OPENAPI_BASE_URL: 'https://openapi.apigw.example.com',
};
const quiet = createLogger({}, () => {});
const runtimeOf = (env: Record<string, string>) => createRuntime(loadConfig(env), { log: quiet });

describe('the webhook pipeline when deployed', () => {
  it('refuses to build the receiver without its queue or body bucket, naming the variable', () => {
    expect(() => sqsInvocationQueueOf(runtimeOf(DEPLOYED))).toThrow(
      'Invalid configuration: INVOCATION_QUEUE_URL: required when deployed',
    );
    expect(() =>
      sqsInvocationQueueOf(
        runtimeOf({
          ...DEPLOYED,
          INVOCATION_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/1/q.fifo',
        }),
      ),
    ).toThrow('Invalid configuration: DELIVERY_BODY_BUCKET: required when deployed');
    const queue = sqsInvocationQueueOf(
      runtimeOf({
        ...DEPLOYED,
        INVOCATION_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/1/q.fifo',
        DELIVERY_BODY_BUCKET: 'delivery-bodies',
      }),
    );
    expect(queue).toBeInstanceOf(SqsInvocationQueue);
  });

  it('refuses to build the consumer without its ledger or dead-letter queue', () => {
    expect(() => consumerDepsOf(runtimeOf(DEPLOYED))).toThrow(
      'Invalid configuration: DELIVERY_LEDGER_TABLE: required when deployed',
    );
    expect(() =>
      consumerDepsOf(
        runtimeOf({
          ...DEPLOYED,
          DELIVERY_LEDGER_TABLE: 'ledger',
          DELIVERY_BODY_BUCKET: 'delivery-bodies',
          INVOCATION_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/1/q.fifo',
        }),
      ),
    ).toThrow('Invalid configuration: INVOCATION_DEAD_LETTER_QUEUE_URL: required when deployed');
  });

  it('keeps the in-process queue and the in-memory ledger for local runs only', () => {
    const local = runtimeOf({ ...DEPLOYED, IS_OFFLINE: 'true' });
    expect(inProcessInvocationQueueOf(local)).toBeInstanceOf(InProcessInvocationQueue);
    expect(consumerDepsOf(local).ledger.description).toBe('memory (this process only)');
  });
});
