/**
 * The invocation queue's consumer function with real SQS event shapes against the emulator:
 * what runs, what comes back later, what is parked, group order, what is never repeated.
 * Locally there is no queue: what would come back is reported as a batch item failure and
 * logged, what would be parked is logged. The SQS side itself (the dead-letter queue, message
 * visibility, redrive, the body store) runs against moto in the AWS tier (test/aws/).
 */
import { createHash, randomUUID } from 'node:crypto';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { demoSecretFor } from '../../../emulator/index.ts';
import { emulatorForSuite } from '../../helpers/emulator.ts';
import { lambdaContext, sampleEvent } from '../../helpers/lambda.ts';
import { captureLogLines } from '../../helpers/logs.ts';
import { emulatorEnv, loadHandlers, secretFile } from '../../helpers/platform.ts';

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

  /** What the consumer logged about each message it did not finish: parked or later. */
  const settled = () =>
    logLines
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.outcome !== undefined && line.settled !== undefined)
      .map((line) => ({ settled: line.settled, outcome: line.outcome, reason: line.reason }));
  const parkedLines = () =>
    logLines
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => String(line.message).startsWith('invocation parked'))
      .map((line) => String(line.reason));

  describe('consumer', () => {
    // The consumer function has 90 s; each test's context gives it that much.
    const context = () => lambdaContext(90_000);

    it('runs the sample batch, and parks the message whose action does not exist', async () => {
      const response = await consume(structuredClone(BATCH), context());
      expect(failedIds(response)).toEqual([]);
      expect(ran()).toEqual(['hello:{"name":"Ada"}', 'hello:{"name":"Grace"}']);
      expect(parkedLines()).toEqual(['refused: no action named "no-such-action"']);
    });

    it('parks an action that ran and failed (its own 5xx), and brings back one the gateway throttled', async () => {
      emulator.faults.add({
        kind: 'status',
        status: 429,
        errorCode: '400',
        match: { pathPrefix: '/fx7h2k/demo/slow' },
      });
      const ok = record({ action: 'hello', params: { name: 'ok' } });
      const fails = record({ action: 'fail' });
      const quota = record({ action: 'slow', params: { ms: 1 } });
      const response = await consume(batch(ok, fails, quota), context());
      expect(failedIds(response)).toEqual([quota.messageId]);
      expect(parkedLines()).toEqual(['failed: the action answered 502']);
      expect(settled()).toContainEqual({
        settled: 'later',
        outcome: 'not-sent',
        reason: 'the gateway answered 429 (400)',
      });
    });

    it('does not return a message the action itself refused with a 4xx, and logs it', async () => {
      const refused = record({ action: 'echo', params: { status: 422 } });
      const response = await consume(batch(refused), context());
      expect(failedIds(response)).toEqual([]);
      const logged = logLines.map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(logged).toContainEqual(
        expect.objectContaining({ level: 'error', outcome: 'rejected', status: 422 }),
      );
    });

    it('brings back a message the action answered busy (429), after its Retry-After', async () => {
      const busy = record({ action: 'echo', params: { status: 429, retryAfter: 7 } });
      const response = await consume(batch(busy), context());
      expect(failedIds(response)).toEqual([busy.messageId]);
      const later = logLines
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .find((line) => String(line.message).startsWith('invocation not run'));
      expect(later).toMatchObject({ retryInSeconds: 7 });
    });

    it.each([
      ['not JSON', 'hello'],
      ['no action', { params: {} }],
      ['an action name with a slash', { action: '../hello' }],
      ['params that are not an object', { action: 'hello', params: [1, 2] }],
    ])('parks a malformed message (%s) at once, without calling anything', async (_case, body) => {
      const bad = record(body);
      const response = await consume(batch(bad), context());
      expect(failedIds(response)).toEqual([]);
      expect(parkedLines()).toEqual([expect.stringMatching(/^malformed: /)]);
      expect(emulator.requests).toHaveLength(0);
    });

    it('parks a message whose connection broke after sending: it is not repeated', async () => {
      emulator.faults.add({ kind: 'reset' });
      const message = record({ action: 'hello' });
      const response = await consume(batch(message), context());
      expect(failedIds(response)).toEqual([]);
      expect(emulator.requests).toHaveLength(1);
      expect(parkedLines()).toEqual(['unknown: the connection broke after the request was sent']);
    });

    it('parks a delivery of a webhook no longer in the secret, without calling anything', async () => {
      const orphan = record({
        action: 'hello',
        source: { webhook: 'removed', id: 'msg_gone', key: 'removed:msg_gone' },
      });
      const response = await consume(batch(orphan), context());
      expect(failedIds(response)).toEqual([]);
      expect(parkedLines()).toEqual(['refused: the webhook "removed" is not in the secret']);
      expect(emulator.requests).toHaveLength(0);
    });

    it('keeps a group in order: when one comes back later, the rest of its group comes back unrun', async () => {
      emulator.faults.add({
        kind: 'status',
        status: 503,
        errorCode: '500',
        match: { pathPrefix: '/fx7h2k/demo/slow' },
        times: 0,
      });
      const a1 = record({ action: 'hello', params: { n: 'a1' } }, 'a');
      const a2 = record({ action: 'slow', params: { ms: 1 } }, 'a');
      const b1 = record({ action: 'hello', params: { n: 'b1' } }, 'b');
      const a3 = record({ action: 'hello', params: { n: 'a3' } }, 'a');
      const b2 = record({ action: 'hello', params: { n: 'b2' } }, 'b');
      const response = await consume(batch(a1, a2, b1, a3, b2), context());
      expect(failedIds(response)).toEqual([a2.messageId, a3.messageId]);
      expect(ran().sort()).toEqual(
        ['hello:{"n":"a1"}', 'hello:{"n":"b1"}', 'hello:{"n":"b2"}'].sort(),
      );
    });

    it('answers an empty batch with no failures', async () => {
      expect(failedIds(await consume(batch(), context()))).toEqual([]);
    });
  });
});
