/**
 * Node's compile cache (V8's code cache, kept on disk) for the processes a test run starts: the
 * workers, the serverless CLI (offline, package, print, invoke local), the scripts. The CLI
 * compiles about a second of JavaScript at every start; from the cache it does not. The cache
 * lives in node_modules/.cache, so a fresh clone starts without one and fills it as it runs.
 * Node checks each entry against the source it compiles, so a changed file is compiled again.
 */
import path from 'node:path';

const DIRECTORY = path.resolve(import.meta.dirname, '../../node_modules/.cache/node-compile-cache');

/**
 * Turns the cache on for this process's children (test/helpers/global-setup.ts: every worker
 * and every process a test starts inherits it), unless the caller chose a directory of their own.
 */
export function useCompileCache(env: NodeJS.ProcessEnv = process.env): void {
  env.NODE_COMPILE_CACHE ??= DIRECTORY;
}

/**
 * The cache's variable, for a command a test runs in a bare environment (PATH and HOME, as a
 * reader's shell would have): it changes how fast the command starts, never what it does.
 */
export function compileCache(): { NODE_COMPILE_CACHE?: string } {
  const directory = process.env.NODE_COMPILE_CACHE;
  return directory ? { NODE_COMPILE_CACHE: directory } : {};
}
