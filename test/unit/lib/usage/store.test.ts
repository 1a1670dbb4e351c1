/** The memory usage store, held to the rules every usage store keeps. */
import { memoryUsageStore } from '../../../../lib/usage/store.js';
import { describeUsageStoreRules, type UsageClock } from '../../../helpers/usage-store-rules.js';

const clock: UsageClock = { now: 0 };

describeUsageStoreRules('in memory', clock, async () => {
  const store = memoryUsageStore();
  return () => store;
});
