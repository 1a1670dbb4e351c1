/**
 * serverless offline as a child process, for `npm start` (scripts/start.ts) and the e2e suites
 * (test/e2e/offline.ts): launched in its own process group, ready once GET /health answers,
 * stopped with its whole group, and never left running when the process that started it ends.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { resolve } from 'node:path';
import { PROJECT_ROOT } from './paths.ts';
import { isPortFree } from './ports.ts';

const SERVERLESS_CLI = resolve(PROJECT_ROOT, 'node_modules/serverless/bin/serverless.js');

/** The first esbuild build of every function takes a while on a cold machine. */
const READY_TIMEOUT_MS = 120_000;
const STOP_GRACE_MS = 10_000;
const OUTPUT_LIMIT = 256 * 1024;

/**
 * Preloaded into the serverless process (main thread only): when our end of its stdin pipe
 * closes, i.e. when the process that started it is gone even by SIGKILL, it stops itself the
 * normal way. No orphaned server keeps holding the port. Unref'd, so that it never keeps a
 * failed serverless command alive.
 */
const PARENT_WATCHDOG = `import { isMainThread } from 'node:worker_threads';
if (isMainThread) {
  process.stdin.on('end', () => process.kill(process.pid, 'SIGTERM'));
  process.stdin.on('error', () => {});
  process.stdin.resume();
  process.stdin.unref?.();
}`;
const WATCHDOG_IMPORT = `--import=data:text/javascript;base64,${Buffer.from(PARENT_WATCHDOG).toString('base64')}`;

export interface LaunchOptions {
  /** HTTP port of the functions (serverless-offline's httpPort). */
  port: number;
  /** Complete environment of the child; PORT and the local-run markers are added. */
  env: NodeJS.ProcessEnv;
  /** Keep stdout/stderr in memory (for test failure reports) instead of showing them. */
  capture: boolean;
  /**
   * Without `capture`: keep serverless offline's start-up (its banner, its list of every
   * function and route, the readiness probe's request) to itself, shown only if it fails to
   * start, and show what it prints once it is ready (each request's log line).
   */
  quietUntilReady?: boolean;
  /** esbuild output folder, relative to the project; must be under .esbuild/. */
  workFolder: string;
  readyTimeoutMs?: number;
  /** Stage parameters, `name=value` each (serverless's `--param`), such as corsAllowedOrigins. */
  params?: readonly string[];
}

export interface OfflineProcess {
  baseUrl: string;
  /**
   * Resolves once GET /health answers 200. Rejects (after stopping everything) when offline exits
   * first or never answers; the message then carries the captured output.
   */
  ready: Promise<void>;
  /** Captured stdout and stderr (empty when not capturing): the last 256 KB of it. */
  output(): string;
  /** How many characters were captured since the start, those output() no longer holds too. */
  written(): number;
  /** Settles when the child exits, with its exit code (or the signal name). */
  exited: Promise<number | string>;
  /** Stops the whole process group (idempotent). */
  stop(): Promise<void>;
}

/** Spawns `serverless offline start`; the returned `ready` tells when it answers. */
export async function launchOffline(options: LaunchOptions): Promise<OfflineProcess> {
  const { port, capture, workFolder } = options;
  const quiet = !capture && options.quietUntilReady === true;
  const readyTimeoutMs = options.readyTimeoutMs ?? READY_TIMEOUT_MS;
  const baseUrl = `http://127.0.0.1:${port}`;

  // Otherwise the health probe could be answered by whoever already holds the port.
  if (!(await isPortFree(port))) {
    throw new Error(`Port ${port} is already in use on 127.0.0.1; choose another PORT.`);
  }

  const env: NodeJS.ProcessEnv = {
    ...options.env,
    PORT: String(port),
    IS_OFFLINE: 'true', // serverless.yml: local defaults, not the deployed ones
    SLS_ESBUILD_WORK_FOLDER: workFolder,
    NODE_OPTIONS: [options.env.NODE_OPTIONS, WATCHDOG_IMPORT].filter(Boolean).join(' '),
  };
  const params = (options.params ?? []).map((param) => `--param=${param}`);
  const child = spawn(
    process.execPath,
    [SERVERLESS_CLI, 'offline', 'start', '--noSponsor', ...params],
    {
      cwd: PROJECT_ROOT,
      env,
      detached: true, // own process group: stop() reaches esbuild and anything else it starts
      stdio: ['pipe', capture || quiet ? 'pipe' : 'inherit', capture || quiet ? 'pipe' : 'inherit'],
    },
  );

  let output = '';
  let written = 0;
  let passThrough = false;
  const keep = (chunk: Buffer) => {
    const text = chunk.toString('utf8');
    written += text.length;
    output = (output + text).slice(-OUTPUT_LIMIT);
  };
  child.stdout?.on('data', (chunk: Buffer) => {
    if (passThrough) process.stdout.write(chunk);
    else keep(chunk);
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    if (passThrough) process.stderr.write(chunk);
    else keep(chunk);
  });

  const exited = new Promise<number | string>((resolveExit) => {
    child.once('exit', (code, signal) => resolveExit(code ?? signal ?? 'unknown'));
    child.once('error', (error) => {
      keep(Buffer.from(`\n${error.message}\n`));
      resolveExit('spawn error');
    });
  });
  let running = true;
  void exited.then(() => {
    running = false;
  });

  // Last resort if our process ends without stop(): synchronous kill and clean-up.
  const killOnExit = () => {
    signalGroup(child, 'SIGKILL');
    rmSync(resolve(PROJECT_ROOT, workFolder), { recursive: true, force: true });
  };
  process.once('exit', killOnExit);

  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      if (running) {
        signalGroup(child, 'SIGTERM');
        const graceful = await Promise.race([exited.then(() => true), delay(STOP_GRACE_MS, false)]);
        if (!graceful) keep(Buffer.from('\n[offline did not stop in time; killed]\n'));
      }
      signalGroup(child, 'SIGKILL'); // stragglers of the group, if any
      await exited;
      process.removeListener('exit', killOnExit);
      child.stdin?.destroy();
      await rm(resolve(PROJECT_ROOT, workFolder), { recursive: true, force: true });
    })();
    return stopping;
  };

  const ready = (async () => {
    const outcome = await Promise.race([
      waitForHealth(`${baseUrl}/health`, readyTimeoutMs, () => running),
      exited.then((code) => `serverless offline exited (${code}) before it was ready`),
    ]);
    if (outcome === true) {
      if (quiet) passThrough = true;
      return;
    }
    await stop();
    const details =
      (capture || quiet) && output ? `\n--- serverless offline output ---\n${output}` : '';
    throw new Error(`${outcome}${details}`);
  })();
  ready.catch(() => {}); // the caller awaits it; this only prevents an unhandled rejection
  return { baseUrl, ready, output: () => output, written: () => written, exited, stop };
}

/** true once url answers 200, or the reason it never did. */
async function waitForHealth(
  url: string,
  timeoutMs: number,
  alive: () => boolean,
): Promise<true | string> {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer';
  while (Date.now() < deadline && alive()) {
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(5_000) });
      await response.body?.cancel();
      if (response.status === 200) return true;
      last = `last answer: ${response.status}`;
    } catch {
      // not listening yet
    }
    await delay(250, undefined);
  }
  return alive()
    ? `GET ${url} did not answer 200 within ${Math.round(timeoutMs / 1000)} s (${last})`
    : 'serverless offline exited before it was ready';
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    if (process.platform === 'win32') child.kill(signal);
    else process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

function delay<T>(ms: number, value: T): Promise<T> {
  return new Promise((resolveDelay) => setTimeout(resolveDelay, ms, value));
}
