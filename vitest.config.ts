import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';

/**
 * The unit and integration files share a worker process, one file after another, instead of a
 * process each (vitest's `isolate`): a fresh process costs more than most of these files' tests
 * (90 s of CPU for the unit files isolated, 44 s shared). test/helpers/file-setup.ts starts each
 * file as a process of its own would: the worker's environment, a fresh graph of the project's
 * modules, no spy, stub or fake timer left over.
 */
const SHARED_WORKER = { isolate: false, setupFiles: ['test/helpers/file-setup.ts'] };

export default defineConfig({
  test: {
    // vitest's default is one worker fewer than the cores: one file at a time on two cores, while
    // many files wait on timers, sockets and child processes more than they compute.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // Passing tests stay quiet; a failing test shows the log lines it produced.
    silent: 'passed-only',
    testTimeout: 20_000,
    hookTimeout: 180_000,
    // Node's compile cache (V8's code cache on disk) for the workers and every process a test
    // starts: the serverless CLI compiles about a second of JavaScript at each start, and a run
    // starts it some twenty times. Node checks each entry against the file it compiles. The
    // cache is in node_modules, so a fresh clone starts without one. A test that gives a command
    // a bare environment passes these variables on.
    env: {
      NODE_COMPILE_CACHE:
        process.env.NODE_COMPILE_CACHE ??
        fileURLToPath(new URL('node_modules/.cache/node-compile-cache', import.meta.url)),
      // esbuild is a Go program, and Go collects garbage as the heap grows: a build of every
      // function spent a quarter of its CPU on it (5.4 s of CPU, 4.1 s with no collection, for the
      // same zips), and a run builds them seven times. With no collection a build peaks at 800 MB,
      // not 640 MB; past the memory limit Go collects again.
      GOGC: process.env.GOGC ?? 'off',
      GOMEMLIMIT: process.env.GOMEMLIMIT ?? '2GiB',
    },
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          exclude: [...configDefaults.exclude, 'test/unit/emulator/**'],
          ...SHARED_WORKER,
        },
      },
      {
        extends: true,
        // The emulator's own tests share one module graph per worker instead of importing the
        // emulator afresh for each file (two thirds of their time): each file starts emulators of
        // its own, and the emulator keeps no state outside its instances.
        test: { name: 'emulator', include: ['test/unit/emulator/**/*.test.ts'], isolate: false },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          // The fault suite's twelve lanes side by side (faults.test.ts: six kinds of route, two
          // deadlines each), not five then five then two.
          maxConcurrency: 12,
          ...SHARED_WORKER,
        },
      },
      {
        extends: true,
        // Each suite runs the serverless CLI (offline, package or invoke local) on ports and in
        // build folders of its own: they run beside the other files, not one at a time after
        // them. Only template.e2e.test.ts packages (two packages at once would share the
        // project's .serverless/ folder), one stage after the other.
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          testTimeout: 60_000,
        },
      },
    ],
  },
});
