/**
 * A call context for tests that call domain clients directly: its own metrics and a quiet log
 * (or the ones given), and the time left when a test gives it.
 */
import type { CallContext } from '../../lib/core/call-context.ts';
import { createLogger, type Logger } from '../../lib/core/log.ts';
import { Metrics } from '../../lib/core/metrics.ts';

interface TestCallOptions {
  /** Milliseconds left: a number (counted down from now) or a function. */
  readonly remainingMs?: number | (() => number);
  readonly log?: Logger;
  readonly metrics?: Metrics;
}

export function testCall(options: TestCallOptions = {}): CallContext {
  const log = options.log ?? createLogger({}, () => {});
  const metrics = options.metrics ?? new Metrics();
  const given = options.remainingMs;
  if (given === undefined) return { metrics, log };
  if (typeof given === 'function') return { remainingMs: given, metrics, log };
  const deadline = Date.now() + given;
  return { remainingMs: () => deadline - Date.now(), metrics, log };
}
