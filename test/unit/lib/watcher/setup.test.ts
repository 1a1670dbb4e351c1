/**
 * The container's watcher as the configuration assembles it, each part real: state in a file or
 * in DynamoDB (dynalite), changes to the log or to EventBridge (a loopback PutEvents), the job
 * list from the emulator. Which store and which emitter were chosen shows in what a pass writes.
 */
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../../lib/core/config.ts';
import { createLogger } from '../../../../lib/core/log.ts';
import { createRuntime } from '../../../../lib/runtime.ts';
import { scanJobWatcherOf } from '../../../../lib/watcher/setup.ts';
import { createActiveTable, startDynalite } from '../../../../scripts/local-ledger.ts';
import * as tables from '../../../../sls/resolvers/tables.ts';
import { LOOPBACK_AWS, pointAwsSdkAt } from '../../../helpers/aws.ts';
import { testCall } from '../../../helpers/call-context.ts';
import { emulatorForSuite } from '../../../helpers/emulator.ts';
import {
  type EventBridgeServer,
  startEventBridgeServer,
} from '../../../helpers/event-bridge-server.ts';
import { DEMO_SECRET_FILE, emulatorEnv } from '../../../helpers/platform.ts';

const quiet = createLogger({}, () => {});

describe('scanJobWatcherOf', () => {
  const emulator = emulatorForSuite();
  const restores: (() => void)[] = [];
  afterEach(() => {
    for (const restore of restores.splice(0).reverse()) restore();
  });

  /** Two passes of the container's watcher: the baseline, then one job moved on. */
  async function twoPasses(env: Record<string, string>) {
    const runtime = createRuntime(loadConfig(emulatorEnv(emulator, env)), { log: quiet });
    const watcher = scanJobWatcherOf(runtime);
    expect(scanJobWatcherOf(runtime)).toBe(watcher);
    const lines: string[] = [];
    const log = createLogger({}, (line) => lines.push(line));
    await watcher.run(testCall({ log }));
    emulator.scanJobs.advance('2810017');
    const second = await watcher.run(testCall({ log }));
    expect(second.emitted).toBe(1);
    return lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  }

  it('keeps its state in a local file and announces changes in the log, by default locally', async () => {
    const file = path.join(await mkdtemp(path.join(tmpdir(), 'watcher-setup-')), 'state.json');
    const logged = await twoPasses({ WATCHER_STATE_FILE: file });
    expect(existsSync(file)).toBe(true);
    expect(logged).toContainEqual(
      expect.objectContaining({
        message: 'scan job watcher baseline recorded',
        store: `file ${file}`,
      }),
    );
    expect(logged).toContainEqual(
      expect.objectContaining({
        message: 'scan job status changed',
        instanceNo: '2810017',
        status: 'Progress',
      }),
    );
  });

  describe('with a table and a bus', () => {
    let dynalite: Server;
    let bus: EventBridgeServer;
    let endpoint: string;
    beforeAll(async () => {
      dynalite = await startDynalite();
      endpoint = `http://127.0.0.1:${(dynalite.address() as AddressInfo).port}`;
      bus = await startEventBridgeServer();
    });
    afterAll(async () => {
      await bus.close();
      await new Promise((resolve) => dynalite.close(resolve));
    });

    it('keeps its state in the DynamoDB table and announces changes on the event bus, when they are set', async () => {
      const tableName = `watcher-${randomUUID()}`;
      const dynamo = new DynamoDBClient({
        endpoint,
        region: LOOPBACK_AWS.AWS_REGION,
        credentials: { accessKeyId: 'AKIDLOOPBACKTEST', secretAccessKey: 'loopback' },
      });
      await createActiveTable(dynamo, tables.createTableInput(tables.watcherState, tableName));
      restores.push(pointAwsSdkAt('AWS_ENDPOINT_URL_DYNAMODB', endpoint));
      restores.push(pointAwsSdkAt('AWS_ENDPOINT_URL_EVENTBRIDGE', bus.endpoint));
      const logged = await twoPasses({ WATCHER_STATE_TABLE: tableName, EVENT_BUS_NAME: 'scans' });
      const items = await dynamo.send(new ScanCommand({ TableName: tableName }));
      expect(items.Items?.length).toBeGreaterThanOrEqual(25);
      expect(bus.accepted).toEqual([
        expect.objectContaining({
          EventBusName: 'scans',
          Detail: expect.stringContaining('2810017'),
        }),
      ]);
      expect(logged.some((line) => line.message === 'scan job status changed')).toBe(false);
      dynamo.destroy();
    });
  });

  it('refuses to run deployed without its state table: a Lambda disk keeps nothing', () => {
    const deployed = createRuntime(
      loadConfig({
        AWS_LAMBDA_FUNCTION_NAME: 'platform-gateway-dev-watchScanJobs',
        SECRETS_SOURCE: 'file',
        SECRETS_FILE: DEMO_SECRET_FILE,
        SCAN_BASE_URL: 'https://scan.example.com',
      }),
      { log: quiet },
    );
    expect(() => scanJobWatcherOf(deployed)).toThrow(
      'Invalid configuration: WATCHER_STATE_TABLE: required when deployed',
    );
  });
});
