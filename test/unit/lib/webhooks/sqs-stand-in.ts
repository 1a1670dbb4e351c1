/**
 * A loopback server that speaks SQS's JSON protocol for the calls the webhook pipeline makes
 * (SendMessage, ChangeMessageVisibility), so that the real SDK client runs in a unit test. It
 * keeps what each call asked, answers as SQS does (the message's MD5, which the SDK checks), and
 * can refuse every call. Queue semantics (deduplication, visibility, redrive) are moto's, in the
 * AWS tier (test/aws/).
 */
import { createHash, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SQSClient } from '@aws-sdk/client-sqs';

interface SqsCall {
  /** `SendMessage`, `ChangeMessageVisibility`, ... */
  readonly action: string;
  readonly input: Record<string, unknown>;
}

export interface SqsStandIn {
  readonly endpoint: string;
  readonly calls: SqsCall[];
  /** When set, every call is refused with this exception (HTTP 400). */
  refuse: string | undefined;
  /** A real SQS client pointed at it, with throwaway credentials. */
  client(): SQSClient;
  close(): Promise<void>;
}

export async function startSqsStandIn(): Promise<SqsStandIn> {
  const state = { calls: [] as SqsCall[], refuse: undefined as string | undefined };
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const input = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
    const action = String(req.headers['x-amz-target'] ?? '').replace('AmazonSQS.', '');
    state.calls.push({ action, input });
    const reply = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/x-amz-json-1.0' });
      res.end(JSON.stringify(body));
    };
    if (state.refuse) {
      reply(400, { __type: `com.amazonaws.sqs#${state.refuse}`, message: 'scripted refusal' });
      return;
    }
    if (action === 'SendMessage') {
      const md5 = createHash('md5').update(String(input.MessageBody), 'utf8').digest('hex');
      reply(200, { MessageId: randomUUID(), MD5OfMessageBody: md5 });
      return;
    }
    reply(200, {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    endpoint,
    get calls() {
      return state.calls;
    },
    get refuse() {
      return state.refuse;
    },
    set refuse(value) {
      state.refuse = value;
    },
    client: () =>
      new SQSClient({
        endpoint,
        region: 'us-east-1',
        credentials: { accessKeyId: 'AKIDLOOPBACKTEST', secretAccessKey: 'loopback' },
        maxAttempts: 1,
      }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
