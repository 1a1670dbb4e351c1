/**
 * The watcher of a container, assembled from the configuration: state in DynamoDB when
 * WATCHER_STATE_TABLE is set, else in a local file; changes to the EventBridge bus when
 * EVENT_BUS_NAME is set, else to the log.
 */
import { ConfigError } from '../core/errors.ts';
import { perRuntime } from '../core/per-runtime.ts';
import type { Runtime } from '../runtime.ts';
import { bulkScanJobsOf } from '../scan-jobs/bulk.ts';
import { dynamoDbStateStore } from './dynamo-state-store.ts';
import { type ChangeEmitter, eventBridgeEmitter, logEmitter } from './emitters.ts';
import { fileStateStore } from './file-state-store.ts';
import type { WatcherStateStore } from './state-store.ts';
import { ScanJobWatcher } from './watcher.ts';

/** The container's watcher, built on first use from its runtime. */
export const scanJobWatcherOf = perRuntime(
  (runtime: Runtime): ScanJobWatcher =>
    new ScanJobWatcher({
      scanJobs: bulkScanJobsOf(runtime),
      store: stateStoreOf(runtime),
      emitter: emitterOf(runtime),
    }),
);

function stateStoreOf({ config }: Runtime): WatcherStateStore {
  if (config.watcherStateTable) return dynamoDbStateStore({ tableName: config.watcherStateTable });
  if (config.watcherStateFile) return fileStateStore(config.watcherStateFile);
  throw new ConfigError(
    'Invalid configuration: WATCHER_STATE_TABLE: required when deployed (a Lambda disk does not keep state)',
  );
}

function emitterOf({ config }: Runtime): ChangeEmitter {
  return config.eventBusName ? eventBridgeEmitter({ busName: config.eventBusName }) : logEmitter();
}
