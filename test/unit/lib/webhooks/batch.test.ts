/**
 * An SQS batch run group by group, with the consumer's real code under it: the execution client
 * against a loopback action the test scripts, the in-memory ledger, and the settlement recorded.
 */
import type { ServerResponse } from 'node:http';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { CallContext } from '../../../../lib/core/call-context.ts';
import { createLogger } from '../../../../lib/core/log.ts';
import { Metrics } from '../../../../lib/core/metrics.ts';
import { ExecutionClient } from '../../../../lib/execution/client.ts';
import { SecretStore } from '../../../../lib/secrets/store.ts';
import { UpstreamClient } from '../../../../lib/upstream/client.ts';
import { createDispatcher } from '../../../../lib/upstream/dispatch.ts';
import type { Dispatcher } from '../../../../lib/upstream/undici.ts';
import { ACTION_WAIT_MS } from '../../../../lib/webhooks/action.ts';
import { consumeBatch } from '../../../../lib/webhooks/batch.ts';
import type { ConsumerDeps } from '../../../../lib/webhooks/consumer.ts';
import { memoryDeliveryLedger } from '../../../../lib/webhooks/ledger.ts';
import { PARKED_REASON_ATTRIBUTE, type Settlement } from '../../../../lib/webhooks/settlement.ts';
import { sampleEvent } from '../../../helpers/lambda.ts';
import { type ScriptedServer, startScriptedServer } from '../../../helpers/scripted-server.ts';
import { memorySecretSource } from '../../../helpers/secret-source.ts';

const TEMPLATE = (sampleEvent('sqs-batch.json') as unknown as SQSEvent).Records[0]!;

/** A record of the sample batch: `n` names it, `group` is its FIFO group (none: its own). */
function record(
  n: string,
  params: Record<string, unknown>,
  options: { group?: string; receiveCount?: number; parkedReason?: string } = {},
): SQSRecord {
  const attributes = {
    ...TEMPLATE.attributes,
    ApproximateReceiveCount: String(options.receiveCount ?? 1),
    MessageGroupId: options.group,
  };
  if (options.group === undefined) delete attributes.MessageGroupId;
  return {
    ...TEMPLATE,
    messageId: n,
    receiptHandle: `receipt-${n}`,
    body: JSON.stringify({ action: 'act', params: { n, ...params } }),
    attributes,
    messageAttributes: options.parkedReason
      ? {
          [PARKED_REASON_ATTRIBUTE]: {
            dataType: 'String',
            stringValue: options.parkedReason,
            stringListValues: [],
            binaryListValues: [],
          },
        }
      : {},
  };
}
const batch = (...records: SQSRecord[]): SQSEvent => ({ Records: records });
const failed = (response: { batchItemFailures: { itemIdentifier: string }[] }) =>
  response.batchItemFailures.map((failure) => failure.itemIdentifier);

/** The action answers by the `status` param: 200 unless told (429 with Retry-After: 5). */
function act(req: { body: Buffer }, res: ServerResponse) {
  const { status = 200 } = JSON.parse(req.body.toString()) as { status?: number };
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (status === 429) headers['retry-after'] = '5';
  res.writeHead(status, headers).end('{}');
}

describe('consumeBatch', () => {
  let action: ScriptedServer;
  let dispatcher: Dispatcher;
  let later: [string, number][];
  let deps: ConsumerDeps;
  let remaining: number;
  let call: CallContext;

  beforeAll(async () => {
    action = await startScriptedServer(act);
    dispatcher = createDispatcher();
  });
  afterAll(async () => {
    await dispatcher.close();
    await action.close();
  });
  beforeEach(() => {
    action.received.length = 0;
    later = [];
    const secrets = new SecretStore(
      memorySecretSource({ actions: { act: { url: `${action.url.href}fx/act` } } }).source,
      { ttlMs: 60_000 },
    );
    const settlement: Settlement = {
      later: async (message, seconds) => {
        later.push([message.id, seconds]);
      },
      deadLetter: async () => {},
    };
    const log = createLogger({}, () => {});
    deps = {
      execution: new ExecutionClient({
        secrets,
        vendor: 'platform',
        http: new UpstreamClient({ dispatcher, timeoutMs: 10_000 }),
      }),
      webhooks: undefined,
      ledger: memoryDeliveryLedger(),
      settlement,
      log,
      maxReceives: 3,
    };
    remaining = 90_000;
    call = { remainingMs: () => remaining, metrics: new Metrics(), log };
  });

  const ran = () => action.received.map((r) => (JSON.parse(r.body.toString()) as { n: string }).n);

  it('runs every message, and reports only those that come back later', async () => {
    const response = await consumeBatch(
      batch(record('1', {}), record('2', { status: 429 }), record('3', { status: 422 })),
      deps,
      call,
    );
    expect(ran().sort()).toEqual(['1', '2', '3']);
    expect(failed(response)).toEqual(['2']);
    expect(later).toEqual([['2', 5]]);
  });

  it('runs the messages of a group in order; once one comes back, the rest of its group comes back unrun', async () => {
    const response = await consumeBatch(
      batch(
        record('a1', {}, { group: 'a' }),
        record('b1', {}, { group: 'b' }),
        record('a2', { status: 429 }, { group: 'a' }),
        record('a3', {}, { group: 'a' }),
        record('b2', {}, { group: 'b' }),
        record('a4', {}, { group: 'a' }),
      ),
      deps,
      call,
    );
    const order = ran();
    expect(order.filter((n) => n.startsWith('a'))).toEqual(['a1', 'a2']);
    expect(order.filter((n) => n.startsWith('b'))).toEqual(['b1', 'b2']);
    // In the batch's order, as SQS returns them.
    expect(failed(response)).toEqual(['a2', 'a3', 'a4']);
    expect(later).toEqual([
      ['a2', 5],
      ['a3', 0],
      ['a4', 0],
    ]);
  });

  it('keeps a message without a group apart: one that comes back holds no other back', async () => {
    const response = await consumeBatch(
      batch(record('1', { status: 429 }), record('2', {}), record('3', {})),
      deps,
      call,
    );
    expect(ran().sort()).toEqual(['1', '2', '3']);
    expect(failed(response)).toEqual(['1']);
  });

  it("starts a group's later messages only while the time left covers an action's wait; the first of each group always runs", async () => {
    remaining = ACTION_WAIT_MS - 1;
    const response = await consumeBatch(
      batch(
        record('a1', {}, { group: 'a' }),
        record('a2', {}, { group: 'a' }),
        record('b1', {}, { group: 'b' }),
        record('c1', {}),
      ),
      deps,
      call,
    );
    expect(ran().sort()).toEqual(['a1', 'b1', 'c1']);
    expect(failed(response)).toEqual(['a2']);
    expect(later).toEqual([['a2', 0]]);
  });

  it('counts a message that comes back on its last receive: SQS itself moves it to the dead-letter queue', async () => {
    await consumeBatch(
      batch(
        record('1', { status: 429 }, { receiveCount: 2 }),
        record('2', { status: 429 }, { receiveCount: 3 }),
      ),
      deps,
      call,
    );
    expect(call.metrics.take('consumeInvocations')).toEqual([
      expect.objectContaining({ InvocationsToDeadLetterQueue: 1 }),
    ]);
  });

  it('runs again a message an operator redrove from the dead-letter queue, and no other copy', async () => {
    // An earlier receive of the message was parked: the ledger says so.
    const ledger = memoryDeliveryLedger();
    const earlier = await ledger.claim({
      key: 'message:1',
      rememberUntilMs: Date.now() + 60_000,
      leaseUntilMs: Date.now() + 60_000,
    });
    if (earlier.outcome !== 'claimed') throw new Error('expected a claim');
    await ledger.park('message:1', earlier.token, {
      reason: 'failed',
      messageId: 'the-parked-one',
      rememberUntilMs: Date.now() + 60_000,
    });
    const copy = await consumeBatch(batch(record('1', {})), { ...deps, ledger }, call);
    expect(failed(copy)).toEqual([]);
    expect(ran()).toEqual([]);
    const redriven = await consumeBatch(
      batch(record('1', {}, { parkedReason: 'failed' })),
      { ...deps, ledger },
      call,
    );
    expect(failed(redriven)).toEqual([]);
    expect(ran()).toEqual(['1']);
  });

  it('answers an empty batch with no failures', async () => {
    expect(failed(await consumeBatch(batch(), deps, call))).toEqual([]);
  });
});
