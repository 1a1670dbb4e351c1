/**
 * One process, many requests at once, as Lambda Managed Instances run a function: each kind of
 * function (an HTTP route, the webhook receiver, the queue consumer, the watcher) is loaded once
 * and sent 64 invocations together, from different callers, while the emulator answers them
 * after delays that differ per request, so that their answers interleave. Every log line must
 * belong to its own invocation (its request id), and every metric document to the invocation
 * whose line carries it: its counts are that invocation's, never another's.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Context, ScheduledEvent, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { Webhook } from 'standardwebhooks';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { demoSecretFor } from '../../emulator/index.ts';
import { emulatorForSuite } from '../helpers/emulator.ts';
import { httpEvent, lambdaContext, sampleEvent } from '../helpers/lambda.ts';
import { captureLogLines } from '../helpers/logs.ts';
import { demoSecret, emulatorEnv, loadHandlers, secretFile } from '../helpers/platform.ts';

const AT_ONCE = 64;
/**
 * Deadlines no load can reach: what is tested is whose line carries what, not how fast 64
 * requests are served on a busy machine.
 */
const FAR = { UPSTREAM_TIMEOUT_MS: '120000' };
const invocation = () => lambdaContext(150_000);

type Line = Record<string, unknown>;

/** The captured lines, parsed; a line that is not JSON fails the test. */
const parsed = (lines: readonly string[]): Line[] => lines.map((line) => JSON.parse(line) as Line);

/** The members of a line that are metric values, as its EMF directives declare them. */
function metricsOf(line: Line): Record<string, number> {
  const aws = line._aws as { CloudWatchMetrics: { Metrics: { Name: string }[] }[] } | undefined;
  const values: Record<string, number> = {};
  for (const directive of aws?.CloudWatchMetrics ?? []) {
    for (const { Name } of directive.Metrics) values[Name] = line[Name] as number;
  }
  return values;
}

/** Lines grouped by request id; every line must have one. */
function byRequest(lines: readonly Line[]): Map<string, Line[]> {
  const groups = new Map<string, Line[]>();
  for (const line of lines) {
    expect(line.requestId, JSON.stringify(line)).toEqual(expect.any(String));
    const id = line.requestId as string;
    groups.set(id, [...(groups.get(id) ?? []), line]);
  }
  return groups;
}

/**
 * Delays that differ per request, so that answers come back in another order than asked. The
 * emulator delays a request by the sum of every latency fault it matches, and uses up one
 * application of each: a ladder of faults (the i-th applies to the first i + 1 requests, 1 ms
 * each) delays the first request to arrive most and each later one a millisecond less, 128 ms
 * down to 1. (Faults of one application each would all fall on the first request: 4 s for it,
 * nothing for the others.)
 */
function interleave(emulator: ReturnType<typeof emulatorForSuite>, pathPrefix: string) {
  for (let i = 0; i < AT_ONCE * 2; i++) {
    emulator.faults.add({ kind: 'latency', ms: 1, match: { pathPrefix }, times: i + 1 });
  }
}

describe('one process serving 64 requests at once', () => {
  const emulator = emulatorForSuite();
  let lines: string[];

  beforeEach(() => {
    lines = captureLogLines();
  });
  afterEach(() => {
    vi.restoreAllMocks();
    emulator.faults.clear();
  });

  it("an HTTP route: each request's line carries its own caller and its own counts", async () => {
    const secret = await demoSecret();
    // Callers held by no plan: what is tested is whose line carries what, not their shares.
    const callers = (secret.callers ?? []).filter((caller) => !caller.notAfter && !caller.plan);
    const readers = callers.filter((caller) =>
      caller.scopes.some((scope) => scope === '*' || scope === 'jobs:read'),
    );
    const { list } = await loadHandlers(emulatorEnv(emulator, FAR), {
      list: 'functions/jobs/list.ts',
    });
    lines.length = 0; // what the cold start logged belongs to no request
    interleave(emulator, '/api/v1/jobs');
    const sent = Array.from({ length: AT_ONCE }, (_, i) => {
      const caller = callers[i % callers.length]!;
      const context = invocation();
      return { caller: caller.id, context, page: (i % 3) + 1 };
    });
    const results = await Promise.all(
      sent.map(({ caller, context, page }) =>
        list(
          httpEvent('jobs-list.json', {
            query: `page=${page}&limit=10`,
            headers: {
              authorization: `Bearer ${callers.find((c) => c.id === caller)!.token}`,
            },
          }),
          context,
        ),
      ),
    );
    const groups = byRequest(parsed(lines));
    expect(groups.size).toBe(AT_ONCE);
    for (const [index, { caller, context }] of sent.entries()) {
      const own = groups.get(context.awsRequestId)!;
      const reads = readers.some((reader) => reader.id === caller);
      expect(results[index]!.statusCode).toBe(reads ? 200 : 403);
      const request = own.find((line) => line.message === 'request')!;
      expect(request).toMatchObject({ caller, Caller: caller, CallerRequests: 1 });
      for (const line of own) expect(line.caller).toBe(caller);
      // Its upstream call, counted once on its own line; a refused caller sent nothing.
      const counted = own
        .map(metricsOf)
        .reduce((sum, values) => sum + (values.UpstreamCalls ?? 0), 0);
      expect(counted).toBe(reads ? 1 : 0);
    }
  });

  it('the webhook receiver: each delivery named on its own line, each duplicate counted once, on its own run', async () => {
    const secret = demoSecretFor(emulator.url);
    const signing = (secret.webhooks as Record<string, { secret: string }>).demo!.secret;
    const file = await secretFile(secret);
    const { receive } = await loadHandlers(
      emulatorEnv(emulator, { ...FAR, SECRETS_FILE: file, INVOCATION_QUEUE_URL: '' }),
      { receive: 'functions/webhooks/receive-local.ts' },
    );
    const { inProcessInvocationQueueOf } = await import('../../lib/webhooks/setup.ts');
    const { getRuntime } = await import('../../lib/runtime.ts');
    const queue = inProcessInvocationQueueOf(getRuntime());
    const signed = (id: string, i: number) => {
      const at = new Date();
      const payload = JSON.stringify({ name: `delivery ${i}` });
      const event = httpEvent('webhooks-receive.json', {
        body: payload,
        headers: {
          'webhook-id': id,
          'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
          'webhook-signature': new Webhook(signing).sign(id, at, payload),
        },
      });
      return { id, context: invocation(), event };
    };
    // 16 deliveries run first; then 64 at once: 48 new ones and a copy of each of the 16.
    const earlier = Array.from({ length: 16 }, (_, i) => signed(`msg_${randomUUID()}`, i));
    await Promise.all(earlier.map(({ event, context }) => receive(event, context)));
    await queue.idle();
    lines.length = 0;
    interleave(emulator, '/fx7h2k/demo/hello');
    const fresh = Array.from({ length: 48 }, () => `msg_${randomUUID()}`);
    const sends = [...fresh, ...earlier.map(({ id }) => id)].map(signed);
    const results = await Promise.all(sends.map(({ event, context }) => receive(event, context)));
    await queue.idle();
    expect(results.every((result) => result.statusCode === 202)).toBe(true);
    const all = parsed(lines);
    // The receiver's lines: one request each, naming its own delivery.
    const requests = byRequest(all.filter((line) => line.function === 'receiveWebhook'));
    expect(requests.size).toBe(AT_ONCE);
    for (const { id, context } of sends) {
      const own = requests.get(context.awsRequestId)!;
      expect(own.find((line) => line.message === 'request')).toMatchObject({
        webhook: 'demo',
        deliveryId: id,
      });
      for (const line of own) expect(metricsOf(line)).not.toHaveProperty('WebhookDuplicates');
    }
    // The consumer's runs, in process: each line belongs to one message, and the duplicates
    // are counted on the runs that found them, once each.
    const runs = all.filter((line) => line.function === 'consumeInvocations');
    for (const line of runs) expect(line.messageId).toEqual(expect.any(String));
    const duplicates = runs.filter((line) => line.outcome === 'duplicate');
    expect(duplicates).toHaveLength(16);
    const counted = runs.filter((line) => metricsOf(line).WebhookDuplicates !== undefined);
    expect(counted.map((line) => line.messageId).sort()).toEqual(
      duplicates.map((line) => line.messageId).sort(),
    );
    for (const line of counted) expect(metricsOf(line).WebhookDuplicates).toBe(1);
  });

  it("the queue consumer: each batch's lines and counts are its own", async () => {
    const file = await secretFile(demoSecretFor(emulator.url));
    const loaded = await loadHandlers(
      emulatorEnv(emulator, { ...FAR, SECRETS_FILE: file, INVOCATION_QUEUE_URL: '' }),
      { consume: 'functions/queue/consume.ts' },
    );
    const consume = loaded.consume as unknown as (
      event: SQSEvent,
      context: Context,
    ) => Promise<SQSBatchResponse>;
    lines.length = 0;
    interleave(emulator, '/fx7h2k/demo/hello');
    const template = sampleEvent<SQSEvent>('sqs-batch.json').Records[0]!;
    const record = (action: string, key: string): SQSRecord => ({
      ...template,
      messageId: randomUUID(),
      body: JSON.stringify({ action, params: { key }, source: { webhook: 'demo', id: key, key } }),
      attributes: { ...template.attributes, MessageGroupId: key },
    });
    // Every batch: one action that runs; every fourth also one that can never run (parked).
    const batches = Array.from({ length: AT_ONCE }, (_, i) => {
      const records = [record('hello', `k-${i}`)];
      if (i % 4 === 0) records.push(record('no-such-action', `orphan-${i}`));
      return { records, context: invocation() };
    });
    await Promise.all(
      batches.map(({ records, context }) => consume({ Records: records }, context)),
    );
    const groups = byRequest(parsed(lines));
    expect(groups.size).toBe(AT_ONCE);
    for (const [i, { records, context }] of batches.entries()) {
      const own = groups.get(context.awsRequestId)!;
      const ids = new Set(records.map((r) => r.messageId));
      for (const line of own.filter((l) => l.messageId !== undefined)) {
        expect(ids.has(line.messageId as string)).toBe(true);
      }
      const batch = own.find((line) => line.message === 'batch')!;
      expect(batch).toMatchObject({ messages: records.length });
      const counts = own.map(metricsOf);
      const sum = (name: string) =>
        counts.reduce((total, values) => total + (values[name] ?? 0), 0);
      expect(sum('InvocationsParked')).toBe(i % 4 === 0 ? 1 : 0);
      expect(sum('UpstreamCalls')).toBe(1);
    }
  });

  it("the watcher: each run's lines and counts are its own", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'watcher-concurrency-'));
    const { watch } = await loadHandlers(
      emulatorEnv(emulator, { ...FAR, WATCHER_STATE_FILE: path.join(dir, 'state.json') }),
      { watch: 'functions/watcher/scan.ts' },
    );
    const handler = watch as unknown as (
      event: ScheduledEvent,
      context: Context,
    ) => Promise<{ pages: number }>;
    lines.length = 0;
    interleave(emulator, '/api/v1/jobs');
    const runs = Array.from({ length: AT_ONCE }, () => ({ context: invocation() }));
    const summaries = await Promise.all(
      runs.map(({ context }) => handler(sampleEvent<ScheduledEvent>('schedule.json'), context)),
    );
    const groups = byRequest(parsed(lines));
    expect(groups.size).toBe(AT_ONCE);
    for (const [i, { context }] of runs.entries()) {
      const own = groups.get(context.awsRequestId)!;
      const done = own.find((line) => line.message === 'scan job watch done')!;
      expect(done).toMatchObject({ pages: summaries[i]!.pages });
      // Each page it read is one upstream call, counted on its own line and nowhere else.
      const calls = own
        .map(metricsOf)
        .reduce((sum, values) => sum + (values.UpstreamCalls ?? 0), 0);
      expect(calls).toBe(summaries[i]!.pages);
    }
  });
});
