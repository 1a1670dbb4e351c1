/**
 * Usage stores and metrics the unit tests of lib/usage/ watch: a memory store that records its
 * calls and fails those a test names, and a metrics recorder.
 */
import type { MetricRecorder } from '../../lib/usage/gate.ts';
import { memoryUsageStore, type UsageStore } from '../../lib/usage/store.ts';

/**
 * A memory store that records its calls (`take caller#a`), and fails those `fails` names: with
 * the error it returns, or a refused connection.
 */
export function spiedStore(fails: (method: string, key: string) => boolean | Error = () => false) {
  const inner = memoryUsageStore();
  const calls: string[] = [];
  const store = Object.fromEntries(
    Object.entries(inner).map(([name, member]) => [
      name,
      // peek reads this container's memory: no call, and not counted.
      typeof member === 'function' && name !== 'peek'
        ? async (key: string, ...rest: unknown[]) => {
            calls.push(`${name} ${key}`);
            const failure = fails(name, key);
            if (failure instanceof Error) throw failure;
            if (failure) throw new Error('connect ECONNREFUSED 127.0.0.1:8000');
            return (member as (...args: unknown[]) => unknown).call(inner, key, ...rest);
          }
        : member,
    ]),
  ) as unknown as UsageStore;
  return { store, calls };
}

/** A metrics recorder that keeps what it is told: [name, dimensions, value]. */
export function recorder() {
  const counted: [string, Record<string, string>, number | undefined][] = [];
  const metrics: MetricRecorder = {
    count: (name, dimensions, value) => counted.push([name, { ...dimensions }, value]),
  };
  return { metrics, counted };
}
