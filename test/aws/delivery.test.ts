/**
 * A 202 is a promise, held end to end: the real receiver and consumer code, each loaded as a
 * container of its own, against moto's SQS (a FIFO queue and its dead-letter queue), S3 (the
 * body store) and DynamoDB (the ledger), with a loopback action whose duration, answers and
 * resets each test scripts. Messages are received and redelivered as Lambda's SQS event source
 * does it: a batch of up to five, the handler's batch item failures left in the queue (at the
 * visibility the consumer set), the rest deleted. Every figure is counted at the action.
 */
import { createHash } from 'node:crypto';
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import { DeleteMessageCommand, type Message, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import * as tables from '../../sls/resolvers/tables.ts';
import { type HttpHandler, httpEvent, jsonBody, lambdaContext } from '../helpers/lambda.ts';
import { loadHandlers, secretFile } from '../helpers/platform.ts';
import {
  type Received,
  type ScriptedServer,
  startScriptedServer,
} from '../helpers/scripted-server.ts';
import {
  awsEnv,
  clients,
  createBucket,
  createFifoQueue,
  createTable,
  sqsEventOf,
  unique,
  useAwsEnv,
} from './moto.ts';

type SqsHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;

/** Each webhook's own secret (a secret two webhooks share is refused at load). */
const webhookSecretOf = (webhook: string) =>
  `whsec_${Buffer.from(`delivery-tier-webhook-secret-${webhook}`.padEnd(32, '0')).toString('base64')}`;
const DAY_MS = 24 * 60 * 60 * 1000;

/** What the action received: one line per call. */
interface Call {
  readonly path: string;
  readonly deliveryId: string | undefined;
  readonly at: number;
  readonly bytes: number;
  readonly sha256: string;
}

let restore: () => void;
let action: ScriptedServer;
const calls: Call[] = [];
/** Per path, how the action answers: the test scripts it. */
const behaviour = new Map<
  string,
  (req: Received, res: import('node:http').ServerResponse, n: number) => unknown
>();

const gatewayEnvelope = (res: import('node:http').ServerResponse, status: number, code: string) => {
  res.writeHead(status, {
    'content-type': 'application/json',
    'x-platform-apigw-response-origin': 'APIGW',
  });
  res.end(JSON.stringify({ error: { errorCode: code, message: 'scripted' } }));
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  restore = useAwsEnv();
  action = await startScriptedServer(async (req, res) => {
    const path = new URL(req.url, 'http://x').pathname;
    const n = calls.filter((call) => call.path === path).length;
    calls.push({
      path,
      deliveryId: req.headers['x-delivery-id'] as string | undefined,
      at: Date.now(),
      bytes: req.body.length,
      sha256: createHash('sha256').update(req.body).digest('hex'),
    });
    const answer = behaviour.get(path);
    if (answer) return answer(req, res, n);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"ok":true}');
  });
});
afterAll(async () => {
  await action.close();
  restore();
});
beforeEach(() => {
  calls.length = 0;
  behaviour.clear();
});

/** The secret: one webhook per action, so each test counts its own calls. */
function secretFor(url: string) {
  const names = ['ok', 'sleepy', 'reset', 'gw504', 'mixed', 'busy', 'idem', 'ordered'];
  return {
    actions: Object.fromEntries(
      names.map((name) => [name, { url: `${url}act/${name}`, idempotent: name === 'idem' }]),
    ),
    webhooks: Object.fromEntries(
      names.map((name) => [
        name,
        { secret: webhookSecretOf(name), action: name, ordered: name === 'ordered' },
      ]),
    ),
    callerTokens: ['delivery-tier-caller-token-000000000'],
  };
}

interface Stack {
  readonly receive: HttpHandler;
  readonly consume: SqsHandler;
  readonly queue: Awaited<ReturnType<typeof createFifoQueue>>;
  readonly bucket: string;
}

/** A queue, a bucket and a ledger table in moto, with a receiver and a consumer on them. */
async function stack(extraEnv: Record<string, string> = {}, table?: string): Promise<Stack> {
  const queue = await createFifoQueue(unique('deliveries'), {
    visibilityTimeout: 540,
    maxReceiveCount: 10,
  });
  const bucket = unique('bodies');
  await createBucket(bucket);
  const ledger = table ?? unique('ledger');
  if (!table) await createTable(ledger, tables.deliveryLedger);
  const secrets = await secretFile(secretFor(action.url.href));
  const common = {
    ...awsEnv(),
    SECRETS_SOURCE: 'file',
    SECRETS_FILE: secrets,
    GATEWAY_VENDOR: 'platform',
    INVOCATION_QUEUE_URL: queue.url,
    DELIVERY_BODY_BUCKET: bucket,
    // Deliveries up to what Lambda carries (the default is 1 MiB): the 2 MB one below.
    WEBHOOK_MAX_BODY_BYTES: String(6 * 1024 * 1024),
    ...extraEnv,
  };
  // Two containers, as Lambda runs them: the receiver's, then the consumer's.
  const { receive } = await loadHandlers(common, { receive: 'functions/webhooks/receive.ts' });
  const { consume } = await loadHandlers(
    {
      ...common,
      INVOCATION_DEAD_LETTER_QUEUE_URL: queue.deadLetterUrl,
      DELIVERY_LEDGER_TABLE: ledger,
      INVOCATION_RETRY_SECONDS: '1',
      INVOCATION_MAX_ATTEMPTS: '3',
    },
    { consume: 'functions/queue/consume.ts' },
  );
  return { receive, consume: consume as unknown as SqsHandler, queue, bucket };
}

let sequence = 0;

/** A delivery as a Standard Webhooks sender signs it. */
function delivery(webhook: string, payload: string, id = `msg_${Date.now()}_${sequence++}`) {
  const at = new Date();
  return {
    id,
    event: httpEvent('webhooks-receive.json', {
      path: `/webhooks/${webhook}`,
      pathParameters: { name: webhook },
      body: payload,
      headers: {
        'webhook-id': id,
        'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
        'webhook-signature': new Webhook(webhookSecretOf(webhook)).sign(id, at, payload),
      },
    }),
  };
}

async function send(s: Stack, webhook: string, payload = '{"n":1}', id?: string) {
  const made = delivery(webhook, payload, id);
  const result = await s.receive(made.event, lambdaContext());
  return { ...made, status: result.statusCode, result };
}

async function receiveBatch(queueUrl: string, max = 5): Promise<Message[]> {
  const sqs = clients.sqs();
  try {
    const answer = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: max,
        MessageSystemAttributeNames: ['All'],
        MessageAttributeNames: ['All'],
        WaitTimeSeconds: 1,
      }),
    );
    return answer.Messages ?? [];
  } finally {
    sqs.destroy();
  }
}

/**
 * Lambda's SQS event source, for as long as `until` is false (or `rounds` run out): receive a
 * batch, invoke the consumer, delete what it did not report as failed. Returns the rounds run.
 */
async function pump(s: Stack, until: () => boolean, maxMs = 30_000): Promise<number> {
  const sqs = clients.sqs();
  const started = performance.now();
  let rounds = 0;
  try {
    while (!until() && performance.now() - started < maxMs) {
      const messages = await receiveBatch(s.queue.url);
      if (messages.length === 0) continue;
      rounds++;
      const response = await s.consume(sqsEventOf(messages, s.queue.arn), lambdaContext(90_000));
      const failed = new Set(response.batchItemFailures.map((f) => f.itemIdentifier));
      for (const message of messages) {
        if (failed.has(message.MessageId!)) continue;
        await sqs.send(
          new DeleteMessageCommand({ QueueUrl: s.queue.url, ReceiptHandle: message.ReceiptHandle }),
        );
      }
    }
  } finally {
    sqs.destroy();
  }
  return rounds;
}

const callsTo = (name: string) => calls.filter((call) => call.path === `/act/${name}`);

/** What the dead-letter queue holds: each message's body and parked reason. */
async function parked(s: Stack) {
  const messages = await receiveBatch(s.queue.deadLetterUrl, 10);
  return messages.map((m) => ({
    body: JSON.parse(m.Body!) as { action: string; source?: { id: string } },
    reason: m.MessageAttributes?.parkedReason?.StringValue,
  }));
}

describe('a 202 is a promise (moto: SQS, S3, DynamoDB; a loopback action)', () => {
  it('runs a 12 s action once and a 50 s action once', { timeout: 120_000 }, async () => {
    const s = await stack();
    behaviour.set('/act/sleepy', async (req, res) => {
      const { ms } = JSON.parse(req.body.toString()) as { ms: number };
      await sleep(ms);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"slept":true}');
    });
    expect((await send(s, 'sleepy', '{"ms":12000}')).status).toBe(202);
    expect((await send(s, 'sleepy', '{"ms":50000}')).status).toBe(202);
    await pump(s, () => false, 58_000);
    expect(callsTo('sleepy')).toHaveLength(2);
    expect(await parked(s)).toEqual([]);
    expect(await receiveBatch(s.queue.url)).toEqual([]);
  });

  it('parks, as unknown, a run whose connection reset after sending, and one the gateway answered 504: each ran once', async () => {
    const s = await stack();
    behaviour.set('/act/reset', (_req, res) => res.socket?.destroy());
    behaviour.set('/act/gw504', (_req, res) => gatewayEnvelope(res, 504, '510'));
    const reset = await send(s, 'reset');
    const timedOut = await send(s, 'gw504');
    await pump(s, () => callsTo('reset').length + callsTo('gw504').length >= 2);
    // A second round finds nothing more to run.
    await pump(s, () => false, 3000);
    expect(callsTo('reset')).toHaveLength(1);
    expect(callsTo('gw504')).toHaveLength(1);
    const dead = await parked(s);
    expect(dead.map((d) => [d.body.source?.id, d.reason?.split(':')[0]]).sort()).toEqual(
      [
        [reset.id, 'unknown'],
        [timedOut.id, 'unknown'],
      ].sort(),
    );
  });

  it('tries an idempotent action again after a reset, with the same x-delivery-id each time', async () => {
    const s = await stack();
    behaviour.set('/act/idem', (_req, res, n) => {
      if (n === 0) return res.socket?.destroy();
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
    const sent = await send(s, 'idem');
    await pump(s, () => callsTo('idem').length >= 2);
    await pump(s, () => false, 3000);
    const runs = callsTo('idem');
    expect(runs).toHaveLength(2);
    expect(new Set(runs.map((run) => run.deliveryId))).toEqual(new Set([`idem:${sent.id}`]));
    expect(await parked(s)).toEqual([]);
  });

  it('runs four healthy deliveries once each, at once, beside one that keeps failing, which ends parked', async () => {
    const s = await stack();
    behaviour.set('/act/mixed', (req, res) => {
      const body = JSON.parse(req.body.toString()) as { poison?: boolean };
      if (body.poison) return gatewayEnvelope(res, 503, '500');
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
    const poisoned = await send(s, 'mixed', '{"poison":true}');
    const healthy = [];
    for (let i = 0; i < 4; i++) healthy.push(await send(s, 'mixed', `{"n":${i}}`));
    // One round: the first batch of five, within one visibility timeout.
    await pump(s, () => calls.length >= 5);
    const firstRound = callsTo('mixed').filter((call) => call.bytes > 0);
    expect(firstRound).toHaveLength(5);
    // The poisoned one comes back (1 s, then 2 s) and is parked after its third attempt.
    await pump(s, () => false, 8000);
    const byDelivery = new Map<string, number>();
    for (const call of callsTo('mixed')) {
      byDelivery.set(call.deliveryId ?? '', (byDelivery.get(call.deliveryId ?? '') ?? 0) + 1);
    }
    for (const sent of healthy) expect(byDelivery.get(`mixed:${sent.id}`)).toBe(1);
    expect(byDelivery.get(`mixed:${poisoned.id}`)).toBe(3);
    const dead = await parked(s);
    expect(dead).toHaveLength(1);
    expect(dead[0]?.body.source?.id).toBe(poisoned.id);
    expect(dead[0]?.reason).toMatch(
      /^not-sent: the gateway answered 503 \(500\) \(after 3 attempts\)$/,
    );
  });

  it('carries 300 KB, 900 KB and 2 MB deliveries whole, through the body store, once each', async () => {
    const s = await stack();
    const sizes = [300_000, 900_000, 2_000_000];
    const sent = [];
    for (const size of sizes) {
      const payload = JSON.stringify({ blob: 'x'.repeat(size - 11) });
      expect(Buffer.byteLength(payload)).toBe(size);
      const made = await send(s, 'ok', payload);
      expect(made.status).toBe(202);
      sent.push({ ...made, sha256: createHash('sha256').update(payload).digest('hex') });
    }
    await pump(s, () => callsTo('ok').length >= 3);
    await pump(s, () => false, 3000);
    const runs = callsTo('ok');
    expect(runs).toHaveLength(3);
    for (const [index, made] of sent.entries()) {
      const run = runs.find((call) => call.deliveryId === `ok:${made.id}`);
      expect(run?.bytes, `delivery ${index}`).toBe(sizes[index]);
      expect(run?.sha256, `delivery ${index}`).toBe(made.sha256);
    }
    // The bodies went through S3: the messages carried only their keys.
    const s3 = clients.s3();
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: s.bucket }));
    expect(listed.Contents).toHaveLength(3);
    const first = await s3.send(
      new GetObjectCommand({ Bucket: s.bucket, Key: listed.Contents![0]!.Key }),
    );
    expect((await first.Body!.transformToString()).length).toBeGreaterThan(290_000);
    s3.destroy();
  });

  it('parks a delivery whose body was swapped in the bucket after the 202, and never runs it', async () => {
    const s = await stack();
    const payload = JSON.stringify({ amount: 1, blob: 'x'.repeat(300_000) });
    const made = await send(s, 'ok', payload);
    expect(made.status).toBe(202);
    // Anyone with s3:PutObject on the bucket (the stack's policy refuses all but the receiver;
    // moto does not apply it): the key is a digest of the delivery's, so it can be found.
    const s3 = clients.s3();
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: s.bucket }));
    const key = listed.Contents![0]!.Key!;
    const swapped = JSON.stringify({ amount: 1_000_000, blob: 'x'.repeat(300_000) });
    await s3.send(new PutObjectCommand({ Bucket: s.bucket, Key: key, Body: swapped }));
    s3.destroy();

    await pump(s, () => false, 3000);

    expect(callsTo('ok')).toEqual([]);
    const dead = await parked(s);
    expect(dead.map((d) => [d.body.source?.id, d.reason])).toEqual([
      [
        made.id,
        `refused: its params in the body store (${key}) do not match the SHA-256 its message carries`,
      ],
    ]);
  });

  it('refuses a deeply nested payload before the 202, and queues nothing', async () => {
    const s = await stack();
    const depth = 100_000;
    const sent = await send(s, 'ok', `{"a":${'['.repeat(depth)}${']'.repeat(depth)}}`);
    expect(sent.status).toBe(400);
    expect(jsonBody(sent.result)).toMatchObject({ error: { errorCode: '100' } });
    expect(await receiveBatch(s.queue.url)).toEqual([]);
  });

  it('runs a busy action (429, Retry-After: 1) again after a second, and then it succeeds', async () => {
    const s = await stack();
    behaviour.set('/act/busy', (_req, res, n) => {
      if (n === 0) {
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' });
        return res.end('{"busy":true}');
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
    await send(s, 'busy');
    await pump(s, () => callsTo('busy').length >= 2);
    await pump(s, () => false, 3000);
    const runs = callsTo('busy');
    expect(runs).toHaveLength(2);
    // The queue kept it out of sight for the second the action asked for.
    expect(runs[1]!.at - runs[0]!.at).toBeGreaterThanOrEqual(900);
    expect(await parked(s)).toEqual([]);
  });

  it('runs the deliveries of an ordered webhook one after another, in the order received', async () => {
    const s = await stack();
    behaviour.set('/act/ordered', (req, res, n) => {
      if (n === 0) {
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' });
        return res.end('{}');
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(req.body);
    });
    const sent = [];
    for (let i = 0; i < 3; i++) sent.push(await send(s, 'ordered', `{"n":${i}}`));
    await pump(s, () => callsTo('ordered').length >= 4);
    await pump(s, () => false, 3000);
    // The first was busy: the two behind it waited for it, then all ran in order.
    expect(callsTo('ordered').map((call) => call.deliveryId)).toEqual(
      [sent[0], sent[0], sent[1], sent[2]].map((made) => `ordered:${made!.id}`),
    );
  });

  it('runs nothing more for the same delivery re-signed and sent again two days later', async () => {
    const table = unique('ledger');
    await createTable(table, tables.deliveryLedger);
    const first = await stack({}, table);
    const sent = await send(first, 'ok', '{"once":true}');
    await pump(first, () => callsTo('ok').length >= 1);
    expect(callsTo('ok')).toHaveLength(1);
    // Two days on: SQS has long forgotten the deduplication id (a fresh queue stands for that);
    // the sender re-signs with a new timestamp and the same id.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 2 * DAY_MS, shouldAdvanceTime: true });
    try {
      const later = await stack({}, table);
      const again = await send(later, 'ok', '{"once":true}', sent.id);
      expect(again.status).toBe(202);
      await pump(later, () => false, 4000);
      expect(callsTo('ok')).toHaveLength(1);
      expect(await receiveBatch(later.queue.url)).toEqual([]);
    } finally {
      vi.useRealTimers();
    }
  });
});
