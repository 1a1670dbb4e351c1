/**
 * The container's usage gate: the DynamoDB table when USAGE_TABLE is set (deployed, and under
 * `npm start`, which keeps it in its local dynalite), else this process's memory (unit tests,
 * `serverless invoke local`). Deployed, the table is required of the functions that admit.
 */
import { deployedSetting } from '../core/deployed-settings.ts';
import { perRuntime } from '../core/per-runtime.ts';
import type { Runtime } from '../runtime.ts';
import { dynamoDbUsageStore } from './dynamo-usage-store.ts';
import { UsageGate } from './gate.ts';
import { memoryUsageStore } from './store.ts';

export const usageGateOf = perRuntime((runtime: Runtime): UsageGate => {
  const { config } = runtime;
  const table = deployedSetting(config, config.usageTable, 'USAGE_TABLE');
  // Only a local run gets here without a table (deployed, it is required): memory is what it is
  // meant to count in there, so nothing is wrong, and `serverless invoke local` stays quiet.
  if (!table) {
    runtime.log.debug('no USAGE_TABLE: usage plans are counted in this process only');
  }
  return new UsageGate({
    store: table ? dynamoDbUsageStore({ tableName: table }) : memoryUsageStore(),
    onStoreFailure: config.usageStoreFailure,
    log: runtime.log,
    now: runtime.now,
  });
});
