/**
 * Runs before each test file of the projects whose files share a worker (`isolate: false` in
 * vitest.config.ts), so that each file starts as it would in a process of its own: the
 * environment the worker started with (the same object: a file may have replaced
 * `process.env`), a fresh graph of the project's modules (the packages of node_modules stay
 * loaded: that is what the sharing saves), no spy, stubbed variable or fake timer left by the
 * file before, and zod's global configuration as the worker found it (the emulator loads the
 * full zod, whose import gives every zod schema its English messages).
 */
import { vi } from 'vitest';
import { globalConfig } from 'zod/v4/core';

interface WorkerStart {
  readonly envObject: NodeJS.ProcessEnv;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly zod: Readonly<Record<string, unknown>>;
}

// Kept on globalThis: vi.resetModules() below gives a module of its own a fresh copy.
const holder = globalThis as { __workerStart?: WorkerStart };
holder.__workerStart ??= {
  envObject: process.env,
  env: { ...process.env },
  zod: { ...globalConfig },
};
const start = holder.__workerStart;

vi.useRealTimers();
vi.restoreAllMocks();
vi.unstubAllEnvs();
vi.unstubAllGlobals();
process.env = start.envObject;
restore(process.env, start.env);
restore(globalConfig as Record<string, unknown>, start.zod);
vi.resetModules();

function restore(target: Record<string, unknown>, from: Readonly<Record<string, unknown>>): void {
  for (const key of Object.keys(target)) if (!(key in from)) delete target[key];
  Object.assign(target, from);
}
