/**
 * The scheduled scan job watcher: every run reads the pages of the scan job list several at a
 * time and announces each change of a job's status; a run that cannot finish keeps a cursor
 * and the next goes on from it (lib/watcher/watcher.ts). Triggered by an EventBridge schedule; a failed
 * run throws, so that Lambda reports it, and the next run catches up. Each run has its own call
 * context: its log lines carry its request id, and its metrics ride on its closing line.
 */
import middy from '@middy/core';
import type { Context, ScheduledEvent } from 'aws-lambda';
import { type CallContext, callContextOf } from '../../lib/core/call-context.ts';
import { WatchRunError } from '../../lib/core/errors.ts';
import { describeError, logWithMetrics } from '../../lib/core/log.ts';
import { getRuntime } from '../../lib/runtime.ts';
import { scanJobWatcherOf } from '../../lib/watcher/setup.ts';
import { WATCHER_FUNCTION, type WatchSummary } from '../../lib/watcher/watcher.ts';

// Built at cold start, so that a bad configuration fails the function's init.
const runtime = getRuntime();
const watcher = scanJobWatcherOf(runtime);

const metricsOf = (call: CallContext) => call.metrics.take(WATCHER_FUNCTION);

export const handler = middy<ScheduledEvent, WatchSummary, Error, Context>({
  // Upstream calls are already bounded by the remaining time (lib/upstream/client.ts).
  timeoutEarlyInMillis: 0,
}).handler(async (event, context) => {
  const log = runtime.log.child({
    function: WATCHER_FUNCTION,
    requestId: context.awsRequestId,
    scheduledAt: event.time,
  });
  const call = callContextOf(context, log);
  try {
    const summary = await watcher.run(call);
    logWithMetrics(log, 'info', 'scan job watch done', { ...summary }, metricsOf(call));
    return summary;
  } catch (error) {
    logWithMetrics(log, 'error', 'scan job watch failed', describeError(error), metricsOf(call));
    throw new WatchRunError(`The scan job watch failed: ${(error as Error).message}`);
  }
});
