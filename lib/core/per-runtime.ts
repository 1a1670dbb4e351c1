/**
 * The one way a client is shared by the invocations of a container: derived from the container's
 * runtime (lib/runtime.ts), built on first use, once per runtime (a test's fresh runtime gets its
 * own). Domain modules declare theirs with it:
 * `export const scanJobsClientOf = perRuntime((runtime: Runtime) => new ScanJobsClient(...))`.
 */
export function perRuntime<R extends object, T>(build: (runtime: R) => T): (runtime: R) => T {
  const built = new WeakMap<R, T>();
  return (runtime) => {
    let client = built.get(runtime);
    if (client === undefined) {
      client = build(runtime);
      built.set(runtime, client);
    }
    return client;
  };
}
