/** The memory usage store, held to the rules every usage store keeps. */
import { memoryUsageStore } from '../../../../lib/usage/store.ts';
import { describeUsageStoreRules, type UsageClock } from '../../../helpers/usage-store-rules.ts';

const clock: UsageClock = { now: 0 };

describeUsageStoreRules('in memory', clock, async () => {
  const store = memoryUsageStore();
  return () => store;
});
