/**
 * The invocation queue's consumer function with real SQS event shapes against the emulator:
 * partial batch failures, FIFO group order, what is never repeated. The SQS side itself (FIFO
 * deduplication, redrive to the dead-letter queue, the deployed receiver's SendMessage) runs
 * with the real SDK client against moto in the AWS tier (test/aws/queue.test.ts).
 */
import { createHash, randomUUID } from 'node:crypto';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { demoSecretFor } from '../../../emulator/index.js';
import { emulatorForSuite } from '../../helpers/emulator.js';
import { lambdaContext, sampleEvent } from '../../helpers/lambda.js';
import { captureLogLines } from '../../helpers/logs.js';
import { emulatorEnv, loadHandlers, secretFile } from '../../helpers/platform.js';

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
  const emulator = emulatorForSuite();
  let consume: SqsHandler;
  let secretPath: string;
  let logLines: string[];

  const ran = () =>
    emulator.actions
      .activations()
      .filter((a) => a.kind === 'action')
      .map((a) => `${a.name}:${JSON.stringify(a.params)}`);

  beforeAll(async () => {
    secretPath = await secretFile(demoSecretFor(emulator.url));
    const handlers = await loadHandlers(
      emulatorEnv(emulator, { SECRETS_FILE: secretPath, INVOCATION_QUEUE_URL: '' }),
      { consume: 'functions/queue/consume.ts' },
    );
    consume = handlers.consume as unknown as SqsHandler;
  });
  beforeEach(() => {
    logLines = captureLogLines();
  });
  afterEach(() => {
    vi.restoreAllMocks();
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
});
