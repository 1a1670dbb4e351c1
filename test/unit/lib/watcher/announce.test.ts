/**
 * One chunk of changes announced, with the real stores and emitter: the DynamoDB state store on
 * dynalite (whose claims tell one run from another) and the EventBridge emitter against a
 * loopback PutEvents that can refuse entries.
 */
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../../../lib/core/log.ts';
import {
  type AnnounceRun,
  announceChunk,
  newProgress,
  recordOf,
} from '../../../../lib/watcher/announce.ts';
import { detailOf, type StatusChange } from '../../../../lib/watcher/changes.ts';
import { dynamoDbStateStore } from '../../../../lib/watcher/dynamo-state-store.ts';
import { type ChangeEmitter, eventBridgeEmitter } from '../../../../lib/watcher/emitters.ts';
import type { WatcherStateStore } from '../../../../lib/watcher/state-store.ts';
import { createActiveTable, startDynalite } from '../../../../scripts/local-ledger.ts';
import * as tables from '../../../../sls/resolvers/tables.ts';
import {
  type EventBridgeServer,
  startEventBridgeServer,
} from '../../../helpers/event-bridge-server.ts';
import { change, observed } from './fixtures.ts';

const OBSERVED_AT = '2026-11-21T05:35:00.000Z';
const LOOPBACK = { accessKeyId: 'AKIDLOOPBACKTEST', secretAccessKey: 'loopback' };

let dynalite: Server;
let dynamo: DynamoDBClient;
let bus: EventBridgeServer;
let events: EventBridgeClient;
let store: WatcherStateStore;

beforeAll(async () => {
  dynalite = await startDynalite();
  dynamo = new DynamoDBClient({
    endpoint: `http://127.0.0.1:${(dynalite.address() as AddressInfo).port}`,
    region: 'us-east-1',
    credentials: LOOPBACK,
  });
  bus = await startEventBridgeServer();
  events = new EventBridgeClient({
    endpoint: bus.endpoint,
    region: 'us-east-1',
    credentials: LOOPBACK,
  });
});
afterAll(async () => {
  dynamo.destroy();
  events.destroy();
  await bus.close();
  await new Promise((resolve) => dynalite.close(resolve));
});
beforeEach(async () => {
  const tableName = `watcher-${randomUUID()}`;
  await createActiveTable(dynamo, tables.createTableInput(tables.watcherState, tableName));
  store = dynamoDbStateStore({ tableName, client: dynamo, now: () => 1_000_000 });
  await store.baseline([observed('1', 'Progress'), observed('3', 'Progress')], 'T0');
  bus.calls.length = 0;
  bus.accepted.length = 0;
  bus.refuse = () => undefined;
});

/** The EventBridge emitter, refused entries tried once. */
const emitter = () =>
  eventBridgeEmitter({ busName: 'bus', client: events, maxAttempts: 1, retryDelayMs: 0 });

/** One run's shared parts; its log lines kept. */
function run(token: string, parts: { emitter?: ChangeEmitter; store?: WatcherStateStore } = {}) {
  const lines: string[] = [];
  const shared: AnnounceRun = {
    store: parts.store ?? store,
    emitter: parts.emitter ?? emitter(),
    lease: { token, expiresAt: 2_000_000 },
    observedAt: OBSERVED_AT,
    recorded: new Map(),
    progress: newProgress(),
    log: createLogger({}, (line) => lines.push(line)),
  };
  return { ...shared, lines };
}

const announcedIds = () =>
  bus.accepted.map((entry) => (JSON.parse(entry.Detail ?? '{}') as { changeId: string }).changeId);
const idOf = (c: StatusChange) => detailOf(c, OBSERVED_AT).changeId;

const done = change('1', 'Progress', 'Complete');
const fresh = change('2', null, 'Reservation');
const stopped = change('3', 'Progress', 'Stop');

describe('announceChunk', () => {
  it('claims the changes, announces them in one call, then records them as the new view', async () => {
    const a = run('run-a');
    await announceChunk([done, fresh], a);
    expect(bus.calls).toHaveLength(1);
    expect(announcedIds()).toEqual([idOf(done), idOf(fresh)]);
    const { jobs } = await store.load();
    expect(jobs.get('1')).toEqual({ status: 'Complete', updatedAt: OBSERVED_AT });
    expect(jobs.get('2')).toEqual({ status: 'Reservation', updatedAt: OBSERVED_AT });
    expect(a.recorded).toEqual(
      new Map([
        ['1', recordOf(done.job, OBSERVED_AT)],
        ['2', { status: 'Reservation', updatedAt: OBSERVED_AT }],
      ]),
    );
    expect(a.progress).toMatchObject({ emitted: 2, skipped: 0, failures: [] });
  });

  it('skips what another run has claimed: it neither announces nor records it', async () => {
    const other = run('run-b');
    expect(await store.claim([done], other.lease)).toEqual([done]);
    const a = run('run-a');
    await announceChunk([done, fresh], a);
    expect(announcedIds()).toEqual([idOf(fresh)]);
    expect(a.progress).toMatchObject({ emitted: 1, skipped: 1 });
    expect(a.recorded.has('1')).toBe(false);
    expect((await store.load()).jobs.get('1')?.status).toBe('Progress');
  });

  it('sends nothing when it claimed nothing', async () => {
    const other = run('run-b');
    await store.claim([done], other.lease);
    const a = run('run-a');
    await announceChunk([done], a);
    expect(bus.calls).toEqual([]);
    expect(a.progress).toMatchObject({ emitted: 0, skipped: 1 });
  });

  it('records only what went out; a refused change is reported, and its claim handed back for the next run', async () => {
    bus.refuse = (entry) =>
      (JSON.parse(entry.Detail ?? '{}') as { instanceNo: string }).instanceNo === '3'
        ? 'ThrottlingException'
        : undefined;
    const a = run('run-a');
    await announceChunk([done, stopped], a);
    expect(a.progress.emitted).toBe(1);
    expect(a.progress.failures).toEqual([
      { detail: detailOf(stopped, OBSERVED_AT), reason: 'ThrottlingException' },
    ]);
    expect((await store.load()).jobs.get('3')?.status).toBe('Progress');
    expect([...a.recorded.keys()]).toEqual(['1']);
    // Released: the next run may claim it at once, before the lease would have lapsed.
    expect(await store.claim([stopped], run('run-next').lease)).toEqual([stopped]);
  });

  it('hands back every claim and fails when the announcement itself fails', async () => {
    const broken: ChangeEmitter = {
      description: 'broken',
      emit: async () => {
        throw new Error('emitter down');
      },
    };
    const a = run('run-a', { emitter: broken });
    await expect(announceChunk([done, stopped], a)).rejects.toThrow('emitter down');
    expect((await store.load()).jobs.get('1')?.status).toBe('Progress');
    expect(await store.claim([done, stopped], run('run-next').lease)).toEqual([done, stopped]);
  });

  it('goes on when a claim cannot be handed back (it lapses at the run deadline), and says so', async () => {
    bus.refuse = () => 'InternalFailure';
    const stuck: WatcherStateStore = {
      ...store,
      claim: (changes, lease) => store.claim(changes, lease),
      record: (changes, lease, at) => store.record(changes, lease, at),
      release: async () => {
        throw Object.assign(new Error('table gone'), { name: 'ResourceNotFoundException' });
      },
    };
    const a = run('run-a', { store: stuck });
    await announceChunk([done, stopped], a);
    expect(a.progress.failures).toHaveLength(2);
    expect(a.lines.map((line) => JSON.parse(line))).toEqual([
      expect.objectContaining({
        level: 'warn',
        message: 'could not release scan job change claims; they lapse at the run deadline',
        count: 2,
        errorName: 'ResourceNotFoundException',
      }),
    ]);
  });
});

describe('newProgress', () => {
  it('starts a run with nothing counted', () => {
    const progress = newProgress();
    expect(progress).toEqual({
      pages: 0,
      changes: 0,
      emitted: 0,
      skipped: 0,
      baselined: 0,
      invalid: 0,
      failures: [],
      seen: new Set(),
    });
    expect(newProgress().seen).not.toBe(progress.seen);
  });
});
