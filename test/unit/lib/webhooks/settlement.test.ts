/**
 * How a message is settled: locally in the log; deployed through the real SQS client, against a
 * loopback stand-in of SQS's API (what each call asks; moto holds the queue's own rules in
 * test/aws/).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../../../lib/core/log.ts';
import {
  logSettlement,
  PARKED_REASON_ATTRIBUTE,
  type QueuedMessage,
  sqsSettlement,
} from '../../../../lib/webhooks/settlement.ts';
import { type SqsStandIn, startSqsStandIn } from './sqs-stand-in.ts';

const QUEUE = 'https://sqs.us-east-1.amazonaws.com/123456789012/invocations.fifo';
const DEAD_LETTERS = 'https://sqs.us-east-1.amazonaws.com/123456789012/invocations-dlq.fifo';

const message: QueuedMessage = {
  id: 'm-1',
  body: '{"action":"hello","params":{"n":1}}',
  receiptHandle: 'receipt-1',
  groupId: 'demo:msg_1',
};

function captured() {
  const lines: string[] = [];
  const log = createLogger({ requestId: 'r-1' }, (line) => lines.push(line));
  return { log, logged: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>) };
}

describe('logSettlement (local runs: no queue)', () => {
  it('says in the log that the message will not come again', async () => {
    const { log, logged } = captured();
    await logSettlement().later(message, 30, log);
    expect(logged()).toEqual([
      expect.objectContaining({
        level: 'warn',
        message: 'invocation not run; locally there is no queue to retry it',
        messageId: 'm-1',
        retryInSeconds: 30,
        requestId: 'r-1',
      }),
    ]);
  });

  it('says in the log that the message is parked, with the reason, and never its body', async () => {
    const { log, logged } = captured();
    await logSettlement().deadLetter(message, 'failed: the action answered 502', log);
    expect(logged()).toEqual([
      expect.objectContaining({
        level: 'error',
        message: 'invocation parked; locally there is no dead-letter queue',
        messageId: 'm-1',
        reason: 'failed: the action answered 502',
      }),
    ]);
    expect(JSON.stringify(logged())).not.toContain('"params"');
  });
});

describe('sqsSettlement (deployed)', () => {
  let sqs: SqsStandIn;
  beforeAll(async () => {
    sqs = await startSqsStandIn();
  });
  afterAll(() => sqs.close());
  beforeEach(() => {
    sqs.calls.length = 0;
    sqs.refuse = undefined;
  });
  const settlement = () =>
    sqsSettlement({ queueUrl: QUEUE, deadLetterQueueUrl: DEAD_LETTERS, client: sqs.client });

  it('brings a message back later by setting its visibility, in whole seconds within SQS bounds', async () => {
    const { log } = captured();
    for (const seconds of [30, 2.2, -5, 24 * 60 * 60]) {
      await settlement().later(message, seconds, log);
    }
    expect(sqs.calls.map((call) => call.action)).toEqual(Array(4).fill('ChangeMessageVisibility'));
    expect(sqs.calls.map((call) => call.input.VisibilityTimeout)).toEqual([30, 3, 0, 43_200]);
    expect(sqs.calls[0]?.input).toEqual({
      QueueUrl: QUEUE,
      ReceiptHandle: 'receipt-1',
      VisibilityTimeout: 30,
    });
  });

  it('sends nothing for a message it has no receipt of (it comes back on its own)', async () => {
    await settlement().later({ id: 'm-2', body: '{}' }, 30, captured().log);
    expect(sqs.calls).toEqual([]);
  });

  it('only warns when the visibility cannot be set: the message comes back anyway', async () => {
    sqs.refuse = 'ReceiptHandleIsInvalid';
    const { log, logged } = captured();
    await settlement().later(message, 30, log);
    expect(logged()).toEqual([
      expect.objectContaining({
        level: 'warn',
        message: 'could not set when the message comes again',
        messageId: 'm-1',
        errorName: 'ReceiptHandleIsInvalid',
      }),
    ]);
  });

  it('parks a message in the dead-letter queue: its body, its group, its reason, once per receive', async () => {
    await settlement().deadLetter(message, 'refused: no action named "x"', captured().log);
    const [call] = sqs.calls;
    expect(call?.action).toBe('SendMessage');
    expect(call?.input).toMatchObject({
      QueueUrl: DEAD_LETTERS,
      MessageBody: message.body,
      MessageGroupId: 'demo:msg_1',
      MessageDeduplicationId: 'parked:m-1',
      MessageAttributes: {
        [PARKED_REASON_ATTRIBUTE]: {
          DataType: 'String',
          StringValue: 'refused: no action named "x"',
        },
        parkedAt: { DataType: 'String', StringValue: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) },
      },
    });
  });

  it('keeps a message without a group in a group of its own, and a reason to 1000 characters', async () => {
    await settlement().deadLetter({ id: 'm-3', body: '{}' }, 'x'.repeat(5000), captured().log);
    const input = sqs.calls[0]?.input as {
      MessageGroupId: string;
      MessageAttributes: Record<string, { StringValue: string }>;
    };
    expect(input.MessageGroupId).toBe('m-3');
    expect(input.MessageAttributes[PARKED_REASON_ATTRIBUTE]?.StringValue).toHaveLength(1000);
  });

  it('fails when the message cannot be parked, so that the consumer keeps it', async () => {
    sqs.refuse = 'QueueDoesNotExist';
    await expect(settlement().deadLetter(message, 'r', captured().log)).rejects.toMatchObject({
      name: 'QueueDoesNotExist',
    });
  });

  it('builds its SQS client once, on first use', async () => {
    let built = 0;
    const once = sqsSettlement({
      queueUrl: QUEUE,
      deadLetterQueueUrl: DEAD_LETTERS,
      client: () => {
        built += 1;
        return sqs.client();
      },
    });
    expect(built).toBe(0);
    await once.later(message, 1, captured().log);
    await once.deadLetter(message, 'r', captured().log);
    expect(built).toBe(1);
  });
});
