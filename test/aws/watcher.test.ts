/**
 * The scan job watcher with its real AWS clients against moto: its view in DynamoDB, and its
 * announcements put on an EventBridge bus, routed by a rule to an SQS queue we read back. Two
 * overlapping runs are held on dynalite (test/integration/functions/watcher.test.ts): moto's
 * conditional writes are not atomic under concurrent requests, DynamoDB's and dynalite's are.
 */
import {
  CreateEventBusCommand,
  EventBridgeClient,
  PutRuleCommand,
  PutTargetsCommand,
} from '@aws-sdk/client-eventbridge';
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
} from '@aws-sdk/client-sqs';
import type { Context, ScheduledEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../lib/core/log.ts';
import { EVENT_DETAIL_TYPE, EVENT_SOURCE, eventBridgeEmitter } from '../../lib/watcher/emitters.ts';
import type { WatchSummary } from '../../lib/watcher/watcher.ts';
import * as tables from '../../sls/resolvers/tables.ts';
import { emulatorForSuite } from '../helpers/emulator.ts';
import { lambdaContext, sampleEvent } from '../helpers/lambda.ts';
import { emulatorEnv, loadHandlers } from '../helpers/platform.ts';
import { awsEnv, clients, createTable, unique, useAwsEnv } from './moto.ts';

type WatchHandler = (event: ScheduledEvent, context: Context) => Promise<WatchSummary>;

let restore: () => void;
const emulator = emulatorForSuite();
beforeAll(() => {
  restore = useAwsEnv();
});
afterAll(() => {
  restore();
});

/** A bus, a rule for the watcher's events, and a queue as the rule's target. */
async function busWithQueueTarget(): Promise<{ bus: string; queueUrl: string }> {
  const bus = unique('scan-events');
  const sqs = clients.sqs();
  const queueUrl = (await sqs.send(new CreateQueueCommand({ QueueName: unique('changes') })))
    .QueueUrl!;
  const queueArn = (
    await sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }),
    )
  ).Attributes!.QueueArn!;
  sqs.destroy();
  const events = new EventBridgeClient({
    endpoint: awsEnv().AWS_ENDPOINT_URL,
    region: awsEnv().AWS_REGION,
    credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' },
  });
  await events.send(new CreateEventBusCommand({ Name: bus }));
  await events.send(
    new PutRuleCommand({
      Name: 'scan-job-changes',
      EventBusName: bus,
      EventPattern: JSON.stringify({ source: [EVENT_SOURCE], 'detail-type': [EVENT_DETAIL_TYPE] }),
    }),
  );
  await events.send(
    new PutTargetsCommand({
      Rule: 'scan-job-changes',
      EventBusName: bus,
      Targets: [{ Id: 'q', Arn: queueArn }],
    }),
  );
  events.destroy();
  return { bus, queueUrl };
}

interface DeliveredEvent {
  readonly source: string;
  readonly 'detail-type': string;
  readonly detail: { changeId: string };
}

async function received(queueUrl: string): Promise<DeliveredEvent[]> {
  const sqs = clients.sqs();
  const all: DeliveredEvent[] = [];
  for (;;) {
    const answer = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: 1,
      }),
    );
    if (!answer.Messages?.length) break;
    all.push(...answer.Messages.map((m) => JSON.parse(m.Body!)));
  }
  sqs.destroy();
  return all;
}

/** A watcher container: the module loaded fresh, as on a cold start. */
async function watcher(table: string, bus: string) {
  const { watch } = await loadHandlers(
    { ...emulatorEnv(emulator), ...awsEnv(), WATCHER_STATE_TABLE: table, EVENT_BUS_NAME: bus },
    { watch: 'functions/watcher/scan.ts' },
  );
  return () =>
    (watch as unknown as WatchHandler)(
      sampleEvent('schedule.json') as never,
      lambdaContext(30_000),
    );
}

describe('the scan job watcher on DynamoDB and EventBridge (moto)', () => {
  it('announces a change once, through the bus and its rule to the target', async () => {
    const table = unique('watcher');
    await createTable(table, tables.watcherState);
    const { bus, queueUrl } = await busWithQueueTarget();
    const run = await watcher(table, bus);
    expect(await run()).toMatchObject({ baselined: 25, emitted: 0 });
    expect(emulator.scanJobs.cancel('2810025')).toBe('done');
    expect(await run()).toMatchObject({ changes: 1, emitted: 1 });
    expect(await run()).toMatchObject({ changes: 0, emitted: 0 });
    const events = await received(queueUrl);
    expect(events.map((e) => e.detail.changeId)).toEqual(['2810025:Cancel']);
  });

  it('puts more changes than one PutEvents takes, every one delivered with its source and type', async () => {
    const { bus, queueUrl } = await busWithQueueTarget();
    const changes = Array.from({ length: 11 }, (_, i) => ({
      changeId: `${i + 1}:Complete`,
      instanceNo: String(i + 1),
      previousStatus: 'Progress',
      status: 'Complete',
      memo: 'nightly scan',
      start_url: 'https://demo.example.com/',
      observedAt: '2026-11-21T05:35:00.000Z',
      reportPath: `/jobs/${i + 1}/report`,
    }));
    const failures = await eventBridgeEmitter({ busName: bus }).emit(
      changes,
      createLogger({}, () => {}),
    );
    expect(failures).toEqual([]);
    const events = await received(queueUrl);
    expect(events.map((e) => e.detail.changeId).sort()).toEqual(
      changes.map((c) => c.changeId).sort(),
    );
    for (const event of events) {
      expect(event).toMatchObject({ source: EVENT_SOURCE, 'detail-type': EVENT_DETAIL_TYPE });
    }
    expect(events.find((e) => e.detail.changeId === '1:Complete')?.detail).toEqual(changes[0]);
  });
});
