/**
 * The one way a client is shared by the invocations of a container: derived from the container's
 * runtime, built on first use, once per runtime (a test's fresh runtime gets its own). Domain
 * modules declare theirs here without importing the composition root (lib/runtime.ts):
 * `export const scanJobsOf = perRuntime((runtime) => new ScanJobs(...))`.
 */
import type { Runtime } from '../runtime.js';

export function perRuntime<T>(build: (runtime: Runtime) => T): (runtime: Runtime) => T {
  const built = new WeakMap<Runtime, T>();
  return (runtime) => {
    let client = built.get(runtime);
    if (client === undefined) {
      client = build(runtime);
      built.set(runtime, client);
    }
    return client;
  };
}
