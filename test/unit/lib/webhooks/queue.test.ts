/**
 * The receiver's hand-off to the invocation queue: the real SQS client against a loopback
 * stand-in of SQS's API, and the real S3 client for bodies too large for a message. The
 * queue's own rules (deduplication, FIFO groups) are held against moto in test/aws/queue.test.ts.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { UnexpectedError } from '../../../../lib/core/errors.ts';
import { s3BodyStore } from '../../../../lib/webhooks/body-store.ts';
import { MAX_INLINE_MESSAGE_BYTES } from '../../../../lib/webhooks/invocation.ts';
import { SqsInvocationQueue } from '../../../../lib/webhooks/queue.ts';
import { type S3StandIn, startS3StandIn } from './s3-stand-in.ts';
import { type SqsStandIn, startSqsStandIn } from './sqs-stand-in.ts';

const QUEUE = 'https://sqs.us-east-1.amazonaws.com/123456789012/invocations.fifo';
const ids = { deduplicationId: 'demo:msg_1', groupId: 'demo:msg_1' };

describe('SqsInvocationQueue', () => {
  let sqs: SqsStandIn;
  let s3: S3StandIn;
  beforeAll(async () => {
    sqs = await startSqsStandIn();
    s3 = await startS3StandIn();
  });
  afterAll(async () => {
    await sqs.close();
    await s3.close();
  });
  beforeEach(() => {
    sqs.calls.length = 0;
    sqs.refuse = undefined;
    s3.objects.clear();
  });

  const queue = (withBodies = true) =>
    new SqsInvocationQueue({
      queueUrl: QUEUE,
      client: sqs.client,
      bodies: withBodies ? s3BodyStore({ bucket: 'bodies', client: s3.client() }) : undefined,
    });

  it('sends the invocation as the message, deduplicated by the delivery and grouped as asked', async () => {
    const invocation = {
      action: 'hello',
      params: { name: 'Ada' },
      source: { webhook: 'demo', id: 'msg_1', key: 'demo:msg_1', timestamp: 1_790_000_000 },
    };
    await queue().enqueue(invocation, { deduplicationId: 'demo:msg_1', groupId: 'demo' });
    expect(sqs.calls).toEqual([
      {
        action: 'SendMessage',
        input: {
          QueueUrl: QUEUE,
          MessageBody: JSON.stringify(invocation),
          MessageDeduplicationId: 'demo:msg_1',
          MessageGroupId: 'demo',
        },
      },
    ]);
    expect(s3.objects.size).toBe(0);
  });

  it('carries params too large for a message in the body store, and their key in the message', async () => {
    const params = { text: 'x'.repeat(MAX_INLINE_MESSAGE_BYTES) };
    await queue().enqueue({ action: 'hello', params }, ids);
    const message = JSON.parse(String(sqs.calls[0]?.input.MessageBody));
    expect(message).toEqual({
      action: 'hello',
      params: {},
      paramsRef: {
        bucket: 'bodies',
        key: expect.stringMatching(/^deliveries\/[0-9a-f]{64}\.json$/),
        sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      },
    });
    const stored = s3.objects.get(`/bodies/${message.paramsRef.key}`);
    expect(JSON.parse(stored?.body.toString('utf8') ?? '')).toEqual(params);
    // The message carries the SHA-256 of the body as put.
    expect(
      createHash('sha256')
        .update(stored?.body ?? '')
        .digest('hex'),
    ).toBe(message.paramsRef.sha256);
  });

  it('keeps a message of exactly the inline limit whole', async () => {
    const invocation = { action: 'hello', params: { t: '' } };
    const room = MAX_INLINE_MESSAGE_BYTES - JSON.stringify(invocation).length;
    await queue().enqueue({ action: 'hello', params: { t: 'x'.repeat(room) } }, ids);
    expect(String(sqs.calls[0]?.input.MessageBody)).toHaveLength(MAX_INLINE_MESSAGE_BYTES);
    expect(s3.objects.size).toBe(0);
  });

  it('refuses a delivery too large for a message where it has no body store, sending nothing', async () => {
    const params = { text: 'x'.repeat(MAX_INLINE_MESSAGE_BYTES) };
    await expect(queue(false).enqueue({ action: 'hello', params }, ids)).rejects.toBeInstanceOf(
      UnexpectedError,
    );
    expect(sqs.calls).toEqual([]);
  });

  it('fails with a 500/900 when SQS refuses, so that the sender delivers again', async () => {
    sqs.refuse = 'QueueDoesNotExist';
    const refused = queue().enqueue({ action: 'hello' }, ids);
    await expect(refused).rejects.toBeInstanceOf(UnexpectedError);
    await expect(refused).rejects.toMatchObject({ status: 500, code: '900' });
  });

  it('builds its SQS client once, on first use', async () => {
    let built = 0;
    const lazy = new SqsInvocationQueue({
      queueUrl: QUEUE,
      client: () => {
        built += 1;
        return sqs.client();
      },
    });
    expect(built).toBe(0);
    await lazy.enqueue({ action: 'hello' }, ids);
    await lazy.enqueue({ action: 'hello' }, ids);
    expect(built).toBe(1);
  });
});
