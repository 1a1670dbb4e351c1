/**
 * POST /webhooks/{name}'s handler (lib/http/webhook-receiver.ts), bound to its route over the
 * real stack, with a real runtime whose secret is in memory and a queue that records what it is
 * handed: a signed delivery is queued with its deduplication id and group and answered 202, an
 * unknown name is answered as a bad signature, and the request line names its targets.
 * Deliveries are signed by the standardwebhooks library, an implementation of its own.
 */
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../../lib/core/config.ts';
import { UnexpectedError } from '../../../../lib/core/errors.ts';
import { createLogger } from '../../../../lib/core/log.ts';
import { bind } from '../../../../lib/http/bind.ts';
import { pathParams } from '../../../../lib/http/middleware/path-params.ts';
import { functionRoutes } from '../../../../lib/http/routes/functions.ts';
import { webhookReceiver } from '../../../../lib/http/webhook-receiver.ts';
import { createRuntime } from '../../../../lib/runtime.ts';
import type { Invocation } from '../../../../lib/webhooks/invocation.ts';
import type { InvocationQueue } from '../../../../lib/webhooks/queue.ts';
import { httpEvent, jsonBody, lambdaContext } from '../../../helpers/lambda.ts';
import { memorySecretSource } from '../../../helpers/secret-source.ts';

const secretOf = (seed: string) => `whsec_${Buffer.alloc(32, seed).toString('base64')}`;
const NIGHTLY = secretOf('n');
const ORDERED = secretOf('o');
const STRANGER = secretOf('s');

/** 2026-11-21T05:00:00Z: the runtime's clock, and when the deliveries are signed. */
const NOW = Date.UTC(2026, 10, 21, 5, 0, 0);

type Enqueued = { invocation: Invocation; options: { deduplicationId: string; groupId: string } };

/** The receiver bound to its route, over a runtime whose secret holds two webhooks. */
function receiver(queue?: InvocationQueue) {
  const { source } = memorySecretSource({
    webhooks: {
      nightly: { secret: NIGHTLY, action: 'hello' },
      ordered: { secret: ORDERED, action: 'echo', ordered: true },
    },
  });
  const lines: string[] = [];
  const log = createLogger({}, (line) => lines.push(line));
  const runtime = createRuntime(loadConfig({}), { secretSource: source, log, now: () => NOW });
  const enqueued: Enqueued[] = [];
  const recording: InvocationQueue = {
    enqueue: async (invocation, options) => {
      enqueued.push({ invocation, options });
    },
  };
  const handler = bind(
    functionRoutes.receiveWebhook,
    webhookReceiver(runtime, queue ?? recording),
    { log, pathParams },
  );
  const requestLine = () =>
    lines.map((line) => JSON.parse(line)).find((line) => line.route === 'POST /webhooks/{name}');
  return { handler, enqueued, requestLine };
}

/** A delivery to /webhooks/<name>, signed with `secret` as a sender signs it. */
function delivery(
  name: string,
  secret: string,
  options: { id?: string; payload?: string; base64?: boolean } = {},
) {
  const id = options.id ?? 'msg_2p4VfXyZ0unit0000000001';
  const payload = options.payload ?? '{"type":"scan.completed","data":{"n":1}}';
  const at = new Date(NOW);
  return httpEvent('webhooks-receive.json', {
    path: `/webhooks/${name}`,
    pathParameters: { name },
    body: options.base64 ? Buffer.from(payload).toString('base64') : payload,
    isBase64Encoded: options.base64 ?? false,
    headers: {
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(NOW / 1000)),
      'webhook-signature': new Webhook(secret).sign(id, at, payload),
    },
  });
}

describe('the webhook receiver', () => {
  it("queues a signed delivery as an invocation of the webhook's action, and answers 202 at once", async () => {
    const { handler, enqueued } = receiver();
    const result = await handler(delivery('nightly', NIGHTLY), lambdaContext());
    expect(result.statusCode).toBe(202);
    expect(jsonBody(result)).toEqual({ accepted: true, id: 'msg_2p4VfXyZ0unit0000000001' });
    expect(enqueued).toEqual([
      {
        invocation: {
          action: 'hello',
          params: { type: 'scan.completed', data: { n: 1 } },
          source: {
            webhook: 'nightly',
            id: 'msg_2p4VfXyZ0unit0000000001',
            key: 'nightly:msg_2p4VfXyZ0unit0000000001',
            timestamp: Math.floor(NOW / 1000),
          },
        },
        // Each delivery stands alone: its own group, deduplicated by its key.
        options: {
          deduplicationId: 'nightly:msg_2p4VfXyZ0unit0000000001',
          groupId: 'nightly:msg_2p4VfXyZ0unit0000000001',
        },
      },
    ]);
  });

  it('queues the deliveries of an ordered webhook in one group, its own name', async () => {
    const { handler, enqueued } = receiver();
    await handler(delivery('ordered', ORDERED, { id: 'msg_a' }), lambdaContext());
    await handler(delivery('ordered', ORDERED, { id: 'msg_b' }), lambdaContext());
    expect(enqueued.map(({ options }) => options)).toEqual([
      { deduplicationId: 'ordered:msg_a', groupId: 'ordered' },
      { deduplicationId: 'ordered:msg_b', groupId: 'ordered' },
    ]);
  });

  it('hands a delivery sent twice to the queue with the same deduplication id both times', async () => {
    const { handler, enqueued } = receiver();
    for (let i = 0; i < 2; i++) {
      expect((await handler(delivery('nightly', NIGHTLY), lambdaContext())).statusCode).toBe(202);
    }
    const [first, second] = enqueued.map(({ options }) => options.deduplicationId);
    expect(first).toBe(second);
  });

  it('verifies the bytes as sent, a base64-encoded body decoded once', async () => {
    const { handler, enqueued } = receiver();
    const payload = '{"text":"héllo ✓"}';
    const result = await handler(
      delivery('nightly', NIGHTLY, { payload, base64: true }),
      lambdaContext(),
    );
    expect(result.statusCode).toBe(202);
    expect(enqueued[0]?.invocation.params).toEqual({ text: 'héllo ✓' });
  });

  it('names the webhook and the delivery on the request line', async () => {
    const { handler, requestLine } = receiver();
    await handler(delivery('nightly', NIGHTLY), lambdaContext());
    expect(requestLine()).toMatchObject({
      status: 202,
      webhook: 'nightly',
      deliveryId: 'msg_2p4VfXyZ0unit0000000001',
    });
  });

  it('answers a delivery to an unknown name as a bad signature, and queues nothing', async () => {
    const unknown = receiver();
    const toUnknown = await unknown.handler(delivery('nobody', STRANGER), lambdaContext());
    const badlySigned = receiver();
    const forged = await badlySigned.handler(delivery('nightly', STRANGER), lambdaContext());
    expect(toUnknown.statusCode).toBe(401);
    expect(jsonBody(toUnknown)).toEqual({
      error: {
        errorCode: '200',
        message: 'Authentication Failed',
        details: 'No matching signature found',
      },
    });
    // The same answer: no answer tells which webhooks exist.
    expect(toUnknown.body).toBe(forged.body);
    expect(toUnknown.headers).toEqual(forged.headers);
    expect([...unknown.enqueued, ...badlySigned.enqueued]).toEqual([]);
    // The line names the webhook asked for, and no delivery: none was verified.
    expect(unknown.requestLine()).toMatchObject({ status: 401, webhook: 'nobody' });
    expect(unknown.requestLine()).not.toHaveProperty('deliveryId');
  });

  it("refuses a delivery signed with another webhook's secret", async () => {
    const { handler, enqueued } = receiver();
    const result = await handler(delivery('nightly', ORDERED), lambdaContext());
    expect(result.statusCode).toBe(401);
    expect(enqueued).toEqual([]);
  });

  it('queues nothing of a signed body that is no JSON object: 400', async () => {
    const { handler, enqueued } = receiver();
    const result = await handler(
      delivery('nightly', NIGHTLY, { payload: '["not","an","object"]' }),
      lambdaContext(),
    );
    expect(result.statusCode).toBe(400);
    expect(enqueued).toEqual([]);
  });

  it('answers 500 when the queue cannot take the delivery (the sender delivers again), naming it', async () => {
    const { handler, requestLine } = receiver({
      enqueue: async () => {
        throw new UnexpectedError(new Error('SQS unavailable'));
      },
    });
    const result = await handler(delivery('nightly', NIGHTLY), lambdaContext());
    expect(result.statusCode).toBe(500);
    expect(jsonBody(result)).toMatchObject({ error: { errorCode: '900' } });
    expect(requestLine()).toMatchObject({
      status: 500,
      webhook: 'nightly',
      deliveryId: 'msg_2p4VfXyZ0unit0000000001',
    });
  });
});
