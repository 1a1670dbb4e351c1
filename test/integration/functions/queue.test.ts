/**
 * The invocation queue: the consumer function with real SQS event shapes against the emulator,
 * the SQS implementation with the real AWS SDK client against sqslite (a JavaScript SQS on
 * loopback), and the deployed receiver's SendMessage on the wire the SDK really speaks.
 *
 * Why two SQS stand-ins: sqslite speaks only the AWS Query protocol (form-encoded `Action=`,
 * XML answers), while @aws-sdk/client-sqs speaks AWS JSON 1.0 since late 2023, so the SDK
 * reaches sqslite only with its Query protocol switched on; sqslite also ignores an explicit
 * MessageDeduplicationId when ContentBasedDeduplication is off (it delivers both copies),
 * returns no message attributes and gives every message of a receive the same receipt handle.
 * So sqslite proves the round trip (our message body, sent by the SDK, received and run by
 * the consumer) and a FIFO queue with a redrive policy to a FIFO dead-letter queue; the wire
 * test proves what the production client sends (dedup id, group id), and the FIFO promise
 * itself is SQS's to keep.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { AwsQueryProtocol } from '@aws-sdk/core/protocols';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import sqslite from 'sqslite';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { demoSecretFor, type Emulator } from '../../../emulator/index.js';
import { SqsInvocationQueue } from '../../../lib/invocationQueue.js';
import {
  type HttpHandler,
  httpEvent,
  jsonBody,
  lambdaContext,
  sampleEvent,
} from '../../helpers/lambda.js';
import { captureLogLines } from '../../helpers/logs.js';
import {
  emulatorEnv,
  loadHandlers,
  secretFile,
  startTestEmulator,
} from '../../helpers/platform.js';

type SqsHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;

const BATCH = sampleEvent('sqs-batch.json') as unknown as SQSEvent;

/** A record of the sample batch with another body (and id, and FIFO group). */
function record(body: unknown, group?: string): SQSRecord {
  const template = structuredClone(BATCH.Records[0]!);
  const messageId = randomUUID();
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  const attributes = { ...template.attributes, MessageGroupId: group };
  if (group === undefined) delete attributes.MessageGroupId;
  return { ...template, messageId, body: text, md5OfBody: md5(text), attributes };
}

function md5(text: string): string {
  return createHash('md5').update(text, 'utf8').digest('hex');
}

const batch = (...records: SQSRecord[]): SQSEvent => ({ Records: records });
const failedIds = (response: SQSBatchResponse) =>
  response.batchItemFailures.map((f) => f.itemIdentifier);

describe('invocation queue', () => {
  let emulator: Emulator;
  let consume: SqsHandler;
  let secretPath: string;
  let logLines: string[];

  const ran = () =>
    emulator.actions
      .activations()
      .filter((a) => a.kind === 'action')
      .map((a) => `${a.name}:${JSON.stringify(a.params)}`);

  beforeAll(async () => {
    emulator = await startTestEmulator();
    secretPath = await secretFile(demoSecretFor(emulator.url));
    const handlers = await loadHandlers(
      emulatorEnv(emulator, { SECRETS_FILE: secretPath, INVOCATION_QUEUE_URL: '' }),
      { consume: 'functions/queue/consume.ts' },
    );
    consume = handlers.consume as unknown as SqsHandler;
  });
  beforeEach(() => {
    emulator.reset();
    logLines = captureLogLines();
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });
  afterAll(async () => {
    await emulator.close();
  });

  describe('consumer', () => {
    it('runs the sample batch and returns only the failing message', async () => {
      const response = await consume(structuredClone(BATCH), lambdaContext());
      expect(failedIds(response)).toEqual(['5f0c9d1e-0002-4a7b-9c1d-000000000002']);
      expect(ran()).toEqual(['hello:{"name":"Ada"}', 'hello:{"name":"Grace"}']);
    });

    it('reports a failed action (502) and a gateway error, not a success', async () => {
      emulator.faults.add({
        kind: 'status',
        status: 429,
        errorCode: '400',
        match: { pathPrefix: '/fx7h2k/demo/slow' },
      });
      const ok = record({ action: 'hello', params: { name: 'ok' } });
      const fails = record({ action: 'fail' });
      const quota = record({ action: 'slow', params: { ms: 1 } });
      const response = await consume(batch(ok, fails, quota), lambdaContext());
      expect(failedIds(response)).toEqual([fails.messageId, quota.messageId]);
    });

    it('does not return a message the action itself refused with a 4xx, and logs it', async () => {
      const refused = record({ action: 'echo', params: { status: 422 } });
      const response = await consume(batch(refused), lambdaContext());
      expect(failedIds(response)).toEqual([]);
      const logged = logLines.map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(logged).toContainEqual(
        expect.objectContaining({ level: 'error', outcome: 'rejected', status: 422 }),
      );
    });

    it.each([
      ['not JSON', 'hello'],
      ['no action', { params: {} }],
      ['an action name with a slash', { action: '../hello' }],
      ['params that are not an object', { action: 'hello', params: [1, 2] }],
    ])('returns a malformed message (%s) without calling anything', async (_case, body) => {
      const bad = record(body);
      const response = await consume(batch(bad), lambdaContext());
      expect(failedIds(response)).toEqual([bad.messageId]);
      expect(emulator.requests).toHaveLength(0);
    });

    it('returns a message whose action could not be reached, without repeating the POST', async () => {
      emulator.faults.add({ kind: 'reset' });
      const message = record({ action: 'hello' });
      const response = await consume(batch(message), lambdaContext());
      expect(failedIds(response)).toEqual([message.messageId]);
      expect(emulator.requests).toHaveLength(1);
    });

    it('keeps a FIFO group in order: after a failure the rest of that group is returned unrun', async () => {
      const a1 = record({ action: 'hello', params: { n: 'a1' } }, 'a');
      const a2 = record({ action: 'fail' }, 'a');
      const b1 = record({ action: 'hello', params: { n: 'b1' } }, 'b');
      const a3 = record({ action: 'hello', params: { n: 'a3' } }, 'a');
      const b2 = record({ action: 'hello', params: { n: 'b2' } }, 'b');
      const response = await consume(batch(a1, a2, b1, a3, b2), lambdaContext());
      expect(failedIds(response)).toEqual([a2.messageId, a3.messageId]);
      expect(ran().sort()).toEqual(
        ['hello:{"n":"a1"}', 'fail:{}', 'hello:{"n":"b1"}', 'hello:{"n":"b2"}'].sort(),
      );
    });

    it('answers an empty batch with no failures, and returns a message for an unknown action', async () => {
      expect(failedIds(await consume(batch(), lambdaContext()))).toEqual([]);
      const unknown = record({ action: 'nope' });
      expect(failedIds(await consume(batch(unknown), lambdaContext()))).toEqual([
        unknown.messageId,
      ]);
    });
  });

  describe('SQS queue with the real SDK client against sqslite', () => {
    let app: ReturnType<typeof sqslite>;
    let client: SQSClient;

    beforeAll(async () => {
      app = sqslite({ logger: false });
      // sqslite only recognises queue URLs on the host name "localhost".
      const address = await app.listen({ port: 0, host: 'localhost' });
      client = new SQSClient({
        endpoint: `http://localhost:${new URL(address).port}`,
        region: 'us-east-1',
        credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
        // sqslite speaks the Query protocol only (see the top of this file).
        protocol: AwsQueryProtocol as never,
        protocolSettings: {
          defaultNamespace: 'com.amazonaws.sqs',
          xmlNamespace: 'http://queue.amazonaws.com/doc/2012-11-05/',
          version: '2012-11-05',
        } as never,
      });
    });
    afterAll(async () => {
      client.destroy();
      await app.close();
    });

    async function fifoQueueWithDeadLetters(name: string): Promise<string> {
      const dlq = await client.send(
        new CreateQueueCommand({
          QueueName: `${name}-dlq.fifo`,
          Attributes: { FifoQueue: 'true' },
        }),
      );
      const { Attributes } = await client.send(
        new GetQueueAttributesCommand({ QueueUrl: dlq.QueueUrl, AttributeNames: ['QueueArn'] }),
      );
      const queue = await client.send(
        new CreateQueueCommand({
          QueueName: `${name}.fifo`,
          Attributes: {
            FifoQueue: 'true',
            ContentBasedDeduplication: 'false',
            RedrivePolicy: JSON.stringify({
              deadLetterTargetArn: Attributes?.QueueArn,
              maxReceiveCount: 5,
            }),
          },
        }),
      );
      return queue.QueueUrl!;
    }

    it('sends invocations the consumer receives and runs', async () => {
      const queueUrl = await fifoQueueWithDeadLetters(`invocations-${Date.now()}`);
      const queue = new SqsInvocationQueue({ queueUrl, client: () => client });
      await queue.enqueue(
        { action: 'hello', params: { name: 'SQS' }, source: { webhook: 'demo', id: 'msg_1' } },
        { deduplicationId: 'demo:msg_1', groupId: 'demo' },
      );
      await queue.enqueue(
        { action: 'fail', params: {} },
        { deduplicationId: 'demo:msg_2', groupId: 'demo' },
      );
      const received = await client.send(
        new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10 }),
      );
      const messages = received.Messages ?? [];
      expect(messages).toHaveLength(2);
      const records = messages.map((m) => ({ ...record(m.Body!), messageId: m.MessageId! }));
      const response = await consume(batch(...records), lambdaContext());
      expect(failedIds(response)).toEqual([messages[1]!.MessageId]);
      expect(ran().sort()).toEqual(['fail:{}', 'hello:{"name":"SQS"}']);
    });

    it('refuses to send to a queue that does not exist, as a 500 the sender retries', async () => {
      const queue = new SqsInvocationQueue({
        queueUrl: `http://localhost:1/queues/missing-${Date.now()}.fifo`,
        client: () => client,
      });
      await expect(
        queue.enqueue({ action: 'hello' }, { deduplicationId: 'x', groupId: 'g' }),
      ).rejects.toMatchObject({ status: 500, code: '900' });
    });
  });

  describe('deployed receiver: SendMessage on the wire (AWS JSON 1.0)', () => {
    const SAVED = [
      'INVOCATION_QUEUE_URL',
      'AWS_REGION',
      'AWS_ACCESS_KEY_ID',
      'AWS_SECRET_ACCESS_KEY',
    ];
    const saved = new Map(SAVED.map((name) => [name, process.env[name]]));
    let server: Server;
    let calls: { target: string | undefined; body: Record<string, string> }[];
    let answer: 'ok' | 'missing';
    let receive: HttpHandler;
    let queueUrl: string;

    beforeAll(async () => {
      calls = [];
      server = createServer(async (req: IncomingMessage, res) => {
        const chunks: Buffer[] = [];
        for await (const chunk of req) chunks.push(chunk as Buffer);
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, string>;
        calls.push({ target: req.headers['x-amz-target'] as string | undefined, body });
        res.setHeader('content-type', 'application/x-amz-json-1.0');
        if (answer === 'missing') {
          res.writeHead(400).end(
            JSON.stringify({
              __type: 'com.amazonaws.sqs#QueueDoesNotExist',
              message: 'The specified queue does not exist.',
            }),
          );
          return;
        }
        res.end(
          JSON.stringify({
            MessageId: randomUUID(),
            MD5OfMessageBody: md5(body.MessageBody ?? ''),
          }),
        );
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as AddressInfo;
      queueUrl = `http://127.0.0.1:${port}/123456789012/platform-gateway-test-invocations.fifo`;
      const handlers = await loadHandlers(
        emulatorEnv(emulator, {
          SECRETS_FILE: secretPath,
          INVOCATION_QUEUE_URL: queueUrl,
          AWS_REGION: 'us-east-1',
          AWS_ACCESS_KEY_ID: 'test',
          AWS_SECRET_ACCESS_KEY: 'test',
        }),
        { receive: 'functions/webhooks/receive.ts' },
      );
      receive = handlers.receive;
    });
    beforeEach(() => {
      calls.length = 0;
      answer = 'ok';
    });
    afterAll(async () => {
      for (const [name, value] of saved) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    });

    function signedDelivery(id: string, payload = '{"name":"queued"}') {
      const secret = (
        demoSecretFor(emulator.url) as { webhooks: Record<string, { secret: string }> }
      ).webhooks.demo!.secret;
      const at = new Date();
      return httpEvent('webhooks-receive.json', {
        body: payload,
        headers: {
          'webhook-id': id,
          'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
          'webhook-signature': new Webhook(secret).sign(id, at, payload),
        },
      });
    }

    it('sends each delivery to the FIFO queue keyed by webhook and id, and runs nothing itself', async () => {
      const first = await receive(signedDelivery('msg_wire_1'), lambdaContext());
      const replay = await receive(signedDelivery('msg_wire_1'), lambdaContext());
      expect([first.statusCode, replay.statusCode]).toEqual([202, 202]);
      expect(jsonBody(first)).toEqual({ accepted: true, id: 'msg_wire_1' });
      // Both copies reach SQS with one deduplication id: SQS delivers the second to no one.
      expect(calls).toHaveLength(2);
      for (const call of calls) {
        expect(call.target).toBe('AmazonSQS.SendMessage');
        expect(call.body).toMatchObject({
          QueueUrl: queueUrl,
          MessageDeduplicationId: 'demo:msg_wire_1',
          MessageGroupId: 'demo',
        });
        expect(JSON.parse(call.body.MessageBody!)).toEqual({
          action: 'hello',
          params: { name: 'queued' },
          source: {
            webhook: 'demo',
            id: 'msg_wire_1',
            key: 'demo:msg_wire_1',
            timestamp: expect.any(Number),
          },
        });
      }
      expect(emulator.actions.activations()).toHaveLength(0);
    });

    it('answers 500/900 when SQS refuses, so that the sender delivers again', async () => {
      answer = 'missing';
      const result = await receive(signedDelivery('msg_wire_2'), lambdaContext());
      expect(result.statusCode).toBe(500);
      expect(jsonBody(result)).toEqual({
        error: { errorCode: '900', message: 'Unexpected Error' },
      });
    });
  });
});
