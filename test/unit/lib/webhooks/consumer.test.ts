/**
 * The consumer's code, one queued invocation at a time, with real parts: the execution client
 * over undici against a loopback action the test scripts, the in-memory delivery ledger (the
 * DynamoDB one is held to the same rules in ledger.test.ts), the secret in memory, the body
 * store on a loopback S3. Settlement is recorded (its SQS and log forms: settlement.test.ts).
 */
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { CallContext } from '../../../../lib/core/call-context.ts';
import { createLogger } from '../../../../lib/core/log.ts';
import { Metrics } from '../../../../lib/core/metrics.ts';
import { ExecutionClient } from '../../../../lib/execution/client.ts';
import { SecretStore } from '../../../../lib/secrets/store.ts';
import { UpstreamClient } from '../../../../lib/upstream/client.ts';
import { createDispatcher } from '../../../../lib/upstream/dispatch.ts';
import type { Dispatcher } from '../../../../lib/upstream/undici.ts';
import { UsageGate } from '../../../../lib/usage/gate.ts';
import { accountRecorder } from '../../../../lib/usage/record.ts';
import { usageReport } from '../../../../lib/usage/report.ts';
import { memoryUsageStore } from '../../../../lib/usage/store.ts';
import { s3BodyStore } from '../../../../lib/webhooks/body-store.ts';
import {
  type ConsumerDeps,
  handleMessage,
  processMessage,
} from '../../../../lib/webhooks/consumer.ts';
import { type DeliveryLedger, memoryDeliveryLedger } from '../../../../lib/webhooks/ledger.ts';
import type { QueuedMessage, Settlement } from '../../../../lib/webhooks/settlement.ts';
import {
  gatewayError,
  type ScriptedServer,
  startScriptedServer,
} from '../../../helpers/scripted-server.ts';
import { memorySecretSource } from '../../../helpers/secret-source.ts';
import { type S3StandIn, startS3StandIn } from './s3-stand-in.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

/** How each message was settled, when it was not simply done. */
function recordingSettlement() {
  const state = {
    later: [] as [string, number][],
    parked: [] as [string, string][],
    parkFails: false,
  };
  const settlement: Settlement = {
    later: async (message, seconds) => {
      state.later.push([message.id, seconds]);
    },
    deadLetter: async (message, reason) => {
      if (state.parkFails) throw Object.assign(new Error('refused'), { name: 'QueueDoesNotExist' });
      state.parked.push([message.id, reason]);
    },
  };
  return { settlement, state };
}

const ok = (res: ServerResponse) =>
  res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');

describe('the consumer (handleMessage)', () => {
  let action: ScriptedServer;
  /** Where nothing listens: a call there reaches nothing. */
  let closedUrl: string;
  let s3: S3StandIn;
  let dispatcher: Dispatcher;
  let secret: ReturnType<typeof memorySecretSource>;
  let clock: number;
  let ledger: DeliveryLedger;
  let settled: ReturnType<typeof recordingSettlement>;
  let deps: ConsumerDeps;
  let lines: string[];
  let call: CallContext;

  beforeAll(async () => {
    action = await startScriptedServer();
    const closed = await startScriptedServer();
    closedUrl = closed.url.href;
    await closed.close();
    s3 = await startS3StandIn();
    dispatcher = createDispatcher();
  });
  afterAll(async () => {
    await dispatcher.close();
    await action.close();
    await s3.close();
  });
  beforeEach(() => {
    action.received.length = 0;
    action.script = (_req, res) => ok(res);
    clock = Date.parse('2026-11-21T05:00:00Z');
    secret = memorySecretSource({
      actions: {
        hello: { url: `${action.url.href}fx/hello` },
        safe: { url: `${action.url.href}fx/safe`, idempotent: true },
        gone: { url: `${closedUrl}fx/gone` },
      },
      webhooks: { demo: { secret: 'whsec_LGZvD+lrGSqN7iOBVynzvIQhL0Yfn3E+', action: 'hello' } },
    });
    const secrets = new SecretStore(secret.source, { ttlMs: 60_000, now: () => clock });
    ledger = memoryDeliveryLedger(() => clock);
    settled = recordingSettlement();
    lines = [];
    const log = createLogger({ function: 'consumeInvocations' }, (line) => lines.push(line));
    deps = {
      execution: new ExecutionClient({
        secrets,
        vendor: 'platform',
        http: new UpstreamClient({
          dispatcher,
          timeoutMs: 10_000,
          backoff: { baseDelayMs: 1, maxDelayMs: 2 },
        }),
      }),
      webhooks: secrets,
      ledger,
      settlement: settled.settlement,
      bodies: s3BodyStore({ bucket: 'bodies', client: s3.client() }),
      log,
      now: () => clock,
      maxAttempts: 3,
      retrySeconds: 10,
    };
    call = { remainingMs: () => 90_000, metrics: new Metrics(), log };
  });

  /** A message of a delivery of the `demo` webhook. */
  const delivery = (id: string, invocation: object, deliveryId = 'msg_1'): QueuedMessage => ({
    id,
    body: JSON.stringify({
      ...invocation,
      source: { webhook: 'demo', id: deliveryId, key: `demo:${deliveryId}` },
    }),
  });
  const hello = (id: string, deliveryId?: string) =>
    delivery(id, { action: 'hello', params: { name: 'Ada' } }, deliveryId);
  const counted = () => call.metrics.take('consumeInvocations');
  const logged = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>);

  it('runs the action once, as a blocking POST of the params with the delivery as its id', async () => {
    expect(await handleMessage(hello('m-1'), deps, call)).toEqual({
      settled: 'done',
      detail: 'succeeded 200',
    });
    const [sent] = action.received;
    expect(sent?.method).toBe('POST');
    expect(sent?.url).toBe('/fx/hello?blocking=true&result=true');
    expect(JSON.parse(sent?.body.toString() ?? '')).toEqual({ name: 'Ada' });
    expect(sent?.headers['x-delivery-id']).toBe('demo:msg_1');
    expect(logged()).toContainEqual(
      expect.objectContaining({
        level: 'info',
        message: 'invocation',
        messageId: 'm-1',
        action: 'hello',
        webhook: 'demo',
        webhookId: 'msg_1',
        outcome: 'succeeded',
        settled: 'done',
        attempt: 1,
      }),
    );
  });

  it('runs nothing for a copy of a delivery that ran, and counts it as a duplicate', async () => {
    await handleMessage(hello('m-1'), deps, call);
    counted();
    expect(await handleMessage(hello('m-2'), deps, call)).toEqual({
      settled: 'duplicate',
      detail: 'done',
    });
    expect(action.received).toHaveLength(1);
    expect(counted()).toEqual([expect.objectContaining({ WebhookDuplicates: 1 })]);
  });

  it('keeps to a message of its own the key of a message that came from no webhook', async () => {
    const plain = { id: 'm-plain', body: '{"action":"hello"}' };
    await handleMessage(plain, deps, call);
    expect(action.received[0]?.headers['x-delivery-id']).toBe('message:m-plain');
  });

  it('is done with a delivery the action refused (its own 4xx): final, logged as an error', async () => {
    action.script = (_req, res) =>
      res.writeHead(422, { 'content-type': 'application/json' }).end('{"error":"bad"}');
    expect(await handleMessage(hello('m-1'), deps, call)).toEqual({
      settled: 'done',
      detail: 'rejected 422',
    });
    expect(logged()).toContainEqual(
      expect.objectContaining({ level: 'error', outcome: 'rejected', status: 422 }),
    );
    expect(await handleMessage(hello('m-2'), deps, call)).toMatchObject({ settled: 'duplicate' });
  });

  it('brings back a delivery the action was too busy for, after its Retry-After, and runs it then', async () => {
    action.script = (_req, res, index) =>
      index === 0
        ? res.writeHead(429, { 'retry-after': '7', 'content-type': 'text/plain' }).end('busy')
        : ok(res);
    expect(await handleMessage(hello('m-1'), deps, call)).toEqual({
      settled: 'later',
      afterSeconds: 7,
      detail: 'the action answered 429',
    });
    expect(await handleMessage(hello('m-1'), deps, call)).toMatchObject({ settled: 'done' });
    expect(action.received).toHaveLength(2);
  });

  it('tries again, backing off, what never reached the action, and parks it after the last attempt', async () => {
    action.script = (_req, res) => gatewayError(res, 503, '500', 'Endpoint Error', 'APIGW');
    const results = [];
    for (let i = 0; i < 3; i++) results.push(await handleMessage(hello('m-1'), deps, call));
    expect(
      results.map((r) => [r.settled, 'afterSeconds' in r ? r.afterSeconds : undefined]),
    ).toEqual([
      ['later', 10],
      ['later', 20],
      ['parked', undefined],
    ]);
    expect(settled.state.parked).toEqual([
      ['m-1', 'not-sent: the gateway answered 503 (500) (after 3 attempts)'],
    ]);
    expect(counted()).toEqual([expect.objectContaining({ InvocationsParked: 1 })]);
    // Parked: a later copy runs nothing.
    action.received.length = 0;
    expect(await handleMessage(hello('m-2'), deps, call)).toEqual({
      settled: 'duplicate',
      detail: 'parked',
    });
    expect(action.received).toHaveLength(0);
  });

  it('parks, never repeating it on its own, a run that may have happened: a reset after sending, or a 5xx of the action', async () => {
    action.script = (_req, res) => res.socket?.destroy();
    expect(await handleMessage(hello('m-1', 'msg_reset'), deps, call)).toEqual({
      settled: 'parked',
      detail: 'unknown: the connection broke after the request was sent',
    });
    action.script = (_req, res) => res.writeHead(502).end('boom');
    expect(await handleMessage(hello('m-2', 'msg_failed'), deps, call)).toEqual({
      settled: 'parked',
      detail: 'failed: the action answered 502',
    });
    expect(action.received).toHaveLength(2);
  });

  it('tries such a run again when the action is marked idempotent', async () => {
    action.script = (_req, res, index) => (index === 0 ? res.writeHead(502).end('boom') : ok(res));
    const safe = delivery('m-1', { action: 'safe', params: {} });
    expect(await handleMessage(safe, deps, call)).toMatchObject({
      settled: 'later',
      afterSeconds: 10,
    });
    expect(await handleMessage(safe, deps, call)).toMatchObject({ settled: 'done' });
  });

  it('parks an action that does not exist at once, sending nothing', async () => {
    expect(await handleMessage(delivery('m-1', { action: 'nope' }), deps, call)).toEqual({
      settled: 'parked',
      detail: 'refused: no action named "nope"',
    });
    expect(action.received).toHaveLength(0);
  });

  it('parks a delivery of a webhook no longer in the secret, where it can read the webhooks', async () => {
    const orphan = {
      id: 'm-1',
      body: JSON.stringify({ action: 'hello', source: { webhook: 'removed', id: 'msg_9' } }),
    };
    expect(await handleMessage(orphan, deps, call)).toEqual({
      settled: 'parked',
      detail: 'refused: the webhook "removed" is not in the secret',
    });
    // With the webhooks in a secret of their own, the receiver alone stops a webhook.
    const runs = await handleMessage(
      {
        id: 'm-2',
        body: JSON.stringify({ action: 'hello', source: { webhook: 'removed', id: 'msg_10' } }),
      },
      { ...deps, webhooks: undefined },
      call,
    );
    expect(runs).toMatchObject({ settled: 'done' });
  });

  it.each([
    ['not JSON', 'hello'],
    ['no action', '{"params":{}}'],
    ['params that are a list', '{"action":"hello","params":[1]}'],
  ])('parks a malformed message (%s), sending nothing', async (_case, body) => {
    const result = await handleMessage({ id: 'm-1', body }, deps, call);
    expect(result).toMatchObject({
      settled: 'parked',
      detail: expect.stringMatching(/^malformed: /),
    });
    expect(action.received).toHaveLength(0);
    expect(counted()).toEqual([expect.objectContaining({ InvocationsParked: 1 })]);
  });

  it('tries again, sending nothing, a delivery whose action cannot be resolved while the secret is unreadable, and runs it once the secret reads', async () => {
    secret.state.text = '{"actions":';
    const first = await handleMessage(hello('m-1'), deps, call);
    expect(first).toMatchObject({
      settled: 'later',
      detail: expect.stringMatching(/^its action could not be resolved: /),
    });
    expect(action.received).toHaveLength(0);
    // The claim was released, not left to lapse: the next copy runs it, never parks it unknown.
    secret.state.text = JSON.stringify({
      actions: { hello: { url: `${action.url.href}fx/hello` } },
      webhooks: { demo: { secret: 'whsec_LGZvD+lrGSqN7iOBVynzvIQhL0Yfn3E+', action: 'hello' } },
    });
    clock += 60_000 * 10;
    expect(await handleMessage(hello('m-1'), deps, call)).toMatchObject({ settled: 'done' });
    expect(action.received).toHaveLength(1);
  });

  it('brings back later a delivery another consumer is running', async () => {
    await ledger.claim({
      key: 'demo:msg_1',
      rememberUntilMs: clock + DAY_MS,
      leaseUntilMs: clock + 60_000,
    });
    expect(await handleMessage(hello('m-1'), deps, call)).toEqual({
      settled: 'later',
      afterSeconds: 10,
      detail: 'the same delivery is running elsewhere',
    });
    expect(action.received).toHaveLength(0);
  });

  it('parks as unknown a delivery whose earlier run stopped while running, unless the action is idempotent', async () => {
    for (const key of ['demo:msg_1', 'demo:msg_safe']) {
      await ledger.claim({ key, rememberUntilMs: clock + DAY_MS, leaseUntilMs: clock + 1000 });
    }
    clock += 2000; // the lease lapsed: that consumer died
    expect(await handleMessage(hello('m-1'), deps, call)).toEqual({
      settled: 'parked',
      detail: 'unknown: an earlier run stopped before its outcome was known',
    });
    expect(action.received).toHaveLength(0);
    const safe = delivery('m-2', { action: 'safe' }, 'msg_safe');
    expect(await handleMessage(safe, deps, call)).toMatchObject({ settled: 'done' });
  });

  it('brings a message back, running nothing, when the ledger cannot be read', async () => {
    const down: DeliveryLedger = {
      ...ledger,
      claim: async () => {
        throw Object.assign(new Error('x'), { name: 'ProvisionedThroughputExceededException' });
      },
    };
    expect(await handleMessage(hello('m-1'), { ...deps, ledger: down }, call)).toEqual({
      settled: 'later',
      afterSeconds: 10,
      detail: 'delivery ledger unavailable: ProvisionedThroughputExceededException',
    });
    expect(action.received).toHaveLength(0);
  });

  it('brings a message back when it cannot be parked, and parks it when it comes again, without running it', async () => {
    action.script = (_req, res) => res.writeHead(502).end('boom');
    settled.state.parkFails = true;
    expect(await handleMessage(hello('m-1'), deps, call)).toEqual({
      settled: 'later',
      afterSeconds: 10,
      detail: 'parking failed: failed: the action answered 502',
    });
    expect(logged()).toContainEqual(
      expect.objectContaining({
        level: 'error',
        message: 'could not park the invocation; it comes again',
        errorName: 'QueueDoesNotExist',
      }),
    );
    settled.state.parkFails = false;
    expect(await handleMessage(hello('m-1'), deps, call)).toEqual({
      settled: 'parked',
      detail: 'failed: the action answered 502',
    });
    expect(action.received).toHaveLength(1);
  });

  it('runs a redriven message again, its attempts afresh', async () => {
    action.script = (_req, res, index) => (index === 0 ? res.writeHead(502).end('boom') : ok(res));
    await handleMessage(hello('m-1'), deps, call);
    const redriven = { ...hello('m-1'), parkedReason: 'failed: the action answered 502' };
    expect(await handleMessage(redriven, deps, call)).toMatchObject({ settled: 'done' });
    expect(action.received).toHaveLength(2);
  });

  it('sends params kept in the body store, and parks them where there is none', async () => {
    const params = { text: 'x'.repeat(1000) };
    const ref = await s3BodyStore({ bucket: 'bodies', client: s3.client() }).put(
      'demo:msg_big',
      JSON.stringify(params),
    );
    const big = delivery('m-1', { action: 'hello', params: {}, paramsRef: ref }, 'msg_big');
    expect(await handleMessage(big, deps, call)).toMatchObject({ settled: 'done' });
    expect(JSON.parse(action.received[0]?.body.toString() ?? '')).toEqual(params);
    const elsewhere = delivery('m-2', { action: 'hello', paramsRef: ref }, 'msg_big_2');
    expect(await handleMessage(elsewhere, { ...deps, bodies: undefined }, call)).toEqual({
      settled: 'parked',
      detail: 'refused: no body store for its params',
    });
  });

  it('parks params swapped in the body store after they were queued, with its reason, and never runs them', async () => {
    const store = s3BodyStore({ bucket: 'bodies', client: s3.client() });
    const ref = await store.put('demo:msg_swapped', JSON.stringify({ amount: 1 }));
    // Anyone who could put an object in the bucket, after the receiver queued the message.
    const object = s3.objects.get(`/bodies/${ref.key}`)!;
    s3.objects.set(`/bodies/${ref.key}`, { ...object, body: Buffer.from('{"amount":1000000}') });
    const swapped = delivery('m-1', { action: 'hello', paramsRef: ref }, 'msg_swapped');

    expect(await handleMessage(swapped, deps, call)).toEqual({
      settled: 'parked',
      detail: `refused: its params in the body store (${ref.key}) do not match the SHA-256 its message carries`,
    });
    expect(action.received).toHaveLength(0);
    expect(settled.state.parked).toEqual([
      [
        'm-1',
        `refused: its params in the body store (${ref.key}) do not match the SHA-256 its message carries`,
      ],
    ]);
    // Its record says parked: a copy of the message runs nothing either.
    expect(await handleMessage({ ...swapped, id: 'm-2' }, deps, call)).toMatchObject({
      settled: 'duplicate',
    });
    expect(action.received).toHaveLength(0);
  });

  it("counts a delivery that reached the platform in the account's usage, and none that reached nothing", async () => {
    const usage = new UsageGate({
      store: memoryUsageStore(),
      onStoreFailure: 'open',
      log: deps.log,
      now: () => clock,
    });
    const accountRequests = async () =>
      (
        await usageReport(usage, 'anyone', {
          plan: undefined,
          accountPlan: { dayQuotaRequest: 100 },
        })
      ).account?.day.requests;
    const counted = { ...deps, usage: accountRecorder(usage) };
    await handleMessage(hello('m-1', 'msg_ran'), counted, call);
    expect(await accountRequests()).toBe(1);
    // The gateway answered: the platform counted it too.
    action.script = (_req, res) => gatewayError(res, 503, '500', 'Endpoint Error', 'APIGW');
    await handleMessage(hello('m-2', 'msg_gateway'), counted, call);
    expect(await accountRequests()).toBe(2);
    // Nothing reached: a refused connection, an unknown action, a malformed message.
    expect(
      await handleMessage(delivery('m-5', { action: 'gone' }, 'msg_gone'), counted, call),
    ).toMatchObject({
      settled: 'later',
    });
    await handleMessage(delivery('m-3', { action: 'nope' }), counted, call);
    await handleMessage({ id: 'm-4', body: 'not json' }, counted, call);
    expect(await accountRequests()).toBe(2);
  });

  describe('processMessage (local runs: one message handed over in process)', () => {
    it('runs the message on a call context of its own, whose metrics ride on a closing line', async () => {
      await processMessage(
        JSON.stringify({ action: 'hello', source: { webhook: 'demo', id: 'x' } }),
        deps,
      );
      lines.length = 0;
      const result = await processMessage(
        JSON.stringify({ action: 'hello', source: { webhook: 'demo', id: 'x' } }),
        deps,
      );
      expect(result).toEqual({ settled: 'duplicate', detail: 'done' });
      const [line, metrics] = logged();
      expect(line).toMatchObject({ message: 'invocation', outcome: 'duplicate' });
      expect(metrics).toMatchObject({
        message: 'metrics',
        messageId: line?.messageId,
        Function: 'consumeInvocations',
        WebhookDuplicates: 1,
      });
      expect(String(line?.messageId)).toMatch(/^local-/);
    });
  });
});
