import { DeleteMessageCommand, type Message, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { demoSecretFor } from '../../emulator/index.ts';
import { SqsInvocationQueue } from '../../lib/webhooks/queue.ts';
import { emulatorForSuite } from '../helpers/emulator.ts';
import { httpEvent, jsonBody, lambdaContext } from '../helpers/lambda.ts';
import { captureLogLines } from '../helpers/logs.ts';
import { emulatorEnv, loadHandlers, secretFile } from '../helpers/platform.ts';
import { awsEnv, clients, createFifoQueue, sqsEventOf, unique, useAwsEnv } from './moto.ts';

type SqsHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;

let restore: () => void;
const emulator = emulatorForSuite();
let secretPath: string;
const sqs = () => clients.sqs();

beforeAll(async () => {
  restore = useAwsEnv();
  secretPath = await secretFile(demoSecretFor(emulator.url));
});
afterAll(() => {
  restore();
});

async function receiveAll(queueUrl: string): Promise<Message[]> {
  const client = sqs();
  const answer = await client.send(
    new ReceiveMessageCommand({
      QueueUrl: queueUrl,
      MaxNumberOfMessages: 10,
      MessageSystemAttributeNames: ['All'],
      WaitTimeSeconds: 1,
    }),
  );
  client.destroy();
  return answer.Messages ?? [];
}

describe('the FIFO invocation queue (moto)', () => {
  it('drops a second message with the same deduplication id: the queue itself', async () => {
    const queue = await createFifoQueue(unique('dedup'));
    const sender = new SqsInvocationQueue({ queueUrl: queue.url });
    const options = { deduplicationId: 'demo:msg_1', groupId: 'demo' };
    await sender.enqueue({ action: 'hello', params: { n: 1 } }, options);
    await sender.enqueue({ action: 'hello', params: { n: 2 } }, options);
    const messages = await receiveAll(queue.url);
    expect(messages.map((m) => JSON.parse(m.Body!))).toEqual([
      { action: 'hello', params: { n: 1 } },
    ]);
    expect(messages[0]?.Attributes?.MessageGroupId).toBe('demo');
  });

  it("sends to the endpoint the SDK is given (AWS_ENDPOINT_URL), not to the host of the queue's URL", async () => {
    // A queue CloudFormation made has AWS's own URL; on a stand-in, the message must reach it.
    const queue = await createFifoQueue(unique('endpoint'));
    const awsStyle = `https://sqs.us-east-1.amazonaws.com/123456789012/${queue.url.split('/').at(-1)}`;
    const sender = new SqsInvocationQueue({ queueUrl: awsStyle });
    await sender.enqueue(
      { action: 'hello', params: { n: 1 } },
      { deduplicationId: 'd', groupId: 'g' },
    );
    expect((await receiveAll(queue.url)).map((m) => JSON.parse(m.Body!))).toEqual([
      { action: 'hello', params: { n: 1 } },
    ]);
  });

  it('takes a deployed webhook delivery sent twice as one message, keyed by webhook and id', async () => {
    const queue = await createFifoQueue(unique('receiver'));
    const { receive } = await loadHandlers(
      {
        ...emulatorEnv(emulator, { SECRETS_FILE: secretPath }),
        ...awsEnv(),
        INVOCATION_QUEUE_URL: queue.url,
      },
      { receive: 'functions/webhooks/receive.ts' },
    );
    const secret = (demoSecretFor(emulator.url) as { webhooks: Record<string, { secret: string }> })
      .webhooks.demo!.secret;
    const delivery = () => {
      const at = new Date();
      const payload = '{"name":"queued"}';
      return httpEvent('webhooks-receive.json', {
        body: payload,
        headers: {
          'webhook-id': 'msg_moto_1',
          'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
          'webhook-signature': new Webhook(secret).sign('msg_moto_1', at, payload),
        },
      });
    };
    expect((await receive(delivery(), lambdaContext())).statusCode).toBe(202);
    expect((await receive(delivery(), lambdaContext())).statusCode).toBe(202);
    const messages = await receiveAll(queue.url);
    expect(messages).toHaveLength(1);
    expect(JSON.parse(messages[0]!.Body!)).toMatchObject({
      action: 'hello',
      params: { name: 'queued' },
      source: { webhook: 'demo', id: 'msg_moto_1', key: 'demo:msg_moto_1' },
    });
    // Deployed, the receiver runs nothing itself.
    expect(emulator.actions.activations()).toHaveLength(0);
  });

  it('answers 500/900 when the queue refuses, so that the sender delivers again', async () => {
    const { receive } = await loadHandlers(
      {
        ...emulatorEnv(emulator, { SECRETS_FILE: secretPath }),
        ...awsEnv(),
        INVOCATION_QUEUE_URL: `${awsEnv().AWS_ENDPOINT_URL}/123456789012/missing.fifo`,
      },
      { receive: 'functions/webhooks/receive.ts' },
    );
    const secret = (demoSecretFor(emulator.url) as { webhooks: Record<string, { secret: string }> })
      .webhooks.demo!.secret;
    const at = new Date();
    const result = await receive(
      httpEvent('webhooks-receive.json', {
        body: '{}',
        headers: {
          'webhook-id': 'msg_moto_2',
          'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
          'webhook-signature': new Webhook(secret).sign('msg_moto_2', at, '{}'),
        },
      }),
      lambdaContext(),
    );
    expect(result.statusCode).toBe(500);
    expect(jsonBody(result)).toEqual({ error: { errorCode: '900', message: 'Unexpected Error' } });
  });

  it('returns only the unsettled message; after its last receive SQS itself moves it to the dead-letter queue', async () => {
    // The backstop: the consumer would park it itself after INVOCATION_MAX_ATTEMPTS; here that
    // is higher than the queue's maxReceiveCount, so SQS's own redrive takes it first.
    const queue = await createFifoQueue(unique('redrive'), { maxReceiveCount: 2 });
    emulator.faults.add({
      kind: 'status',
      status: 503,
      errorCode: '500',
      match: { pathPrefix: '/fx7h2k/demo/slow' },
      times: 0,
    });
    const sender = new SqsInvocationQueue({ queueUrl: queue.url });
    // Two groups, so that the failure of one does not hold the other back.
    await sender.enqueue(
      { action: 'hello', params: { n: 1 } },
      { deduplicationId: 'a', groupId: 'ok' },
    );
    await sender.enqueue(
      { action: 'slow', params: { ms: 1 } },
      { deduplicationId: 'b', groupId: 'bad' },
    );
    const { consume } = await loadHandlers(
      {
        ...emulatorEnv(emulator, { SECRETS_FILE: secretPath }),
        ...awsEnv(),
        INVOCATION_QUEUE_URL: queue.url,
        INVOCATION_DEAD_LETTER_QUEUE_URL: queue.deadLetterUrl,
        INVOCATION_MAX_RECEIVES: '2',
        INVOCATION_MAX_ATTEMPTS: '10',
        INVOCATION_RETRY_SECONDS: '1',
      },
      { consume: 'functions/queue/consume.ts' },
    );
    const logged = captureLogLines();
    const client = sqs();
    let failedTimes = 0;
    for (let round = 0; round < 6; round++) {
      const messages = await receiveAll(queue.url);
      if (messages.length === 0) continue;
      const response = await (consume as unknown as SqsHandler)(
        sqsEventOf(messages, queue.arn),
        lambdaContext(90_000),
      );
      const failed = new Set(response.batchItemFailures.map((f) => f.itemIdentifier));
      failedTimes += failed.size;
      // What the event source does: delete what succeeded; a failure stays, at the visibility
      // the consumer set (1 s here).
      for (const message of messages) {
        if (failed.has(message.MessageId!)) continue;
        await client.send(
          new DeleteMessageCommand({ QueueUrl: queue.url, ReceiptHandle: message.ReceiptHandle }),
        );
      }
    }
    client.destroy();
    const ran = emulator.actions.activations().map((a) => a.name);
    expect(ran.filter((name) => name === 'hello')).toHaveLength(1);
    expect(failedTimes).toBe(2);
    const dead = await receiveAll(queue.deadLetterUrl);
    expect(dead.map((m) => JSON.parse(m.Body!).action)).toEqual(['slow']);
    expect(await receiveAll(queue.url)).toEqual([]);
    // Its last receive is counted for the dead-letter alarm's dashboard.
    const metric = logged
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.InvocationsToDeadLetterQueue !== undefined);
    expect(metric).toEqual([expect.objectContaining({ InvocationsToDeadLetterQueue: 1 })]);
    vi.restoreAllMocks();
  });
});
