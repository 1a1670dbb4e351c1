/**
 * `npm start`: the embedded platform emulator (in this process) plus every HTTP function under
 * `serverless offline` (a child process), wired together with the local defaults.
 *
 * Also exports the child-process handling (`launchOffline`, `findFreePort`) that the e2e helper
 * `test/e2e/offline.ts` reuses; nothing runs on import, only when executed as a script.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { demoSecretFor, startEmulator } from '../emulator/index.js';
import { startLocalLedger } from './local-ledger.js';

export const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const DEMO_SECRETS_FILE = resolve(PROJECT_ROOT, 'emulator/demo-secret.json');
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
  /** esbuild output folder, relative to the project; must be under .esbuild/. */
  workFolder: string;
  readyTimeoutMs?: number;
}

export interface OfflineProcess {
  baseUrl: string;
  /**
   * Resolves once GET /health answers 200. Rejects (after stopping everything) when offline exits
   * first or never answers; the message then carries the captured output.
   */
  ready: Promise<void>;
  /** Captured stdout and stderr (empty when not capturing). */
  output(): string;
  /** Settles when the child exits, with its exit code (or the signal name). */
  exited: Promise<number | string>;
  /** Stops the whole process group (idempotent). */
  stop(): Promise<void>;
}

/** Spawns `serverless offline start`; the returned `ready` tells when it answers. */
export async function launchOffline(options: LaunchOptions): Promise<OfflineProcess> {
  const { port, capture, workFolder } = options;
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
  const child = spawn(process.execPath, [SERVERLESS_CLI, 'offline', 'start', '--noSponsor'], {
    cwd: PROJECT_ROOT,
    env,
    detached: true, // own process group: stop() reaches esbuild and anything else it starts
    stdio: ['pipe', capture ? 'pipe' : 'inherit', capture ? 'pipe' : 'inherit'],
  });

  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-OUTPUT_LIMIT);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);

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
    if (outcome === true) return;
    await stop();
    const details = capture && output ? `\n--- serverless offline output ---\n${output}` : '';
    throw new Error(`${outcome}${details}`);
  })();
  ready.catch(() => {}); // the caller awaits it; this only prevents an unhandled rejection
  return { baseUrl, ready, output: () => output, exited, stop };
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

export function isPortFree(port: number): Promise<boolean> {
  return new Promise((resolveFree) => {
    const probe = createServer();
    probe.once('error', () => resolveFree(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolveFree(true)));
  });
}

/** A port the OS considers free right now on 127.0.0.1. */
export function findFreePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolvePort(port));
    });
  });
}

function portFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new Error(`${name} must be a TCP port (1-65535), got "${raw}"`);
  }
  return port;
}

function positiveIntFromEnv(name: string): number {
  const raw = process.env[name] ?? '';
  if (!/^[1-9][0-9]*$/.test(raw))
    throw new Error(`${name} must be a positive whole number, got "${raw}"`);
  return Number(raw);
}

/** A URL without credentials, query or fragment, fit for the console. */
function shown(url: string | undefined): string {
  if (!url) return '(unset)';
  try {
    const { origin, pathname } = new URL(url);
    return pathname === '/' ? origin : `${origin}${pathname}`;
  } catch {
    return '(not a URL)';
  }
}

/** The demo caller token when the bundled demo secret is in use; never any other secret. */
async function callerTokenHint(usesDemoSecret: boolean): Promise<string> {
  const placeholder = '<your caller token>';
  if (!usesDemoSecret) return placeholder;
  try {
    const secret = JSON.parse(await readFile(DEMO_SECRETS_FILE, 'utf8')) as {
      callerTokens?: unknown;
    };
    const token = Array.isArray(secret.callerTokens) ? secret.callerTokens[0] : undefined;
    return typeof token === 'string' && token !== '' ? token : placeholder;
  } catch {
    return placeholder;
  }
}

async function main(): Promise<void> {
  const cleanups: Array<() => Promise<void>> = [];
  let exiting = false;
  const shutdown = async (code: number, message?: string) => {
    if (exiting) return;
    exiting = true;
    if (message) console.error(message);
    for (const cleanup of cleanups.reverse()) {
      await cleanup().catch((error: unknown) => console.error('cleanup failed:', error));
    }
    process.exit(code);
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (exiting) process.exit(1); // second Ctrl-C: don't wait (the exit hook still kills offline)
      console.error(`\n${signal}: stopping...`);
      void shutdown(0);
    });
  }

  try {
    const port = portFromEnv('PORT', 3000);
    const emulatorPort = portFromEnv('EMULATOR_PORT', 4010);
    const given = (name: string) => (process.env[name] ? process.env[name] : undefined);

    const env: NodeJS.ProcessEnv = { ...process.env, EMULATOR_PORT: String(emulatorPort) };
    let emulatorUrl: string | undefined;
    if (!given('SCAN_BASE_URL') || !given('OPENAPI_BASE_URL')) {
      const phase = given('EMULATOR_PHASE_MS');
      const emulator = await startEmulator({
        port: emulatorPort,
        vendor: given('GATEWAY_VENDOR') ?? 'platform',
        // Scan jobs move Reservation -> Progress -> Complete every this many ms (the watcher's demo).
        phaseDurationMs: phase ? positiveIntFromEnv('EMULATOR_PHASE_MS') : undefined,
      });
      cleanups.push(() => emulator.close());
      emulatorUrl = emulator.url;
      env.SCAN_BASE_URL = given('SCAN_BASE_URL') ?? emulator.url;
      env.OPENAPI_BASE_URL = given('OPENAPI_BASE_URL') ?? emulator.url;
    }
    // Webhook deliveries are claimed in one store shared by every worker, as deployed.
    const ledger = await startLocalLedger();
    cleanups.push(() => ledger.close());
    Object.assign(env, ledger.env);
    env.SECRETS_SOURCE = given('SECRETS_SOURCE') ?? 'file';
    env.SECRETS_FILE = resolve(given('SECRETS_FILE') ?? DEMO_SECRETS_FILE);
    const usesDemoSecret = env.SECRETS_SOURCE === 'file' && env.SECRETS_FILE === DEMO_SECRETS_FILE;
    if (emulatorUrl && usesDemoSecret && emulatorPort !== 4010) {
      // The demo secret's action URLs name port 4010: use a copy that names this emulator.
      env.SECRETS_FILE = await writeRebasedDemoSecret(emulatorUrl, emulatorPort);
    }

    console.log(
      emulatorUrl
        ? `Platform emulator listening on ${emulatorUrl}`
        : 'Platform emulator not started: SCAN_BASE_URL and OPENAPI_BASE_URL are both set',
    );
    console.log(`Starting serverless offline on port ${port} (the first build takes a while)...`);

    const offline = await launchOffline({
      port,
      env,
      capture: false,
      workFolder: `.esbuild/start-${port}`,
    });
    cleanups.push(() => offline.stop());
    await offline.ready;
    void offline.exited.then((code) => {
      void shutdown(1, `serverless offline stopped unexpectedly (${code}); shutting down.`);
    });

    const token = await callerTokenHint(usesDemoSecret);
    console.log(
      [
        '',
        `Functions ready at ${offline.baseUrl}`,
        `  SCAN_BASE_URL=${shown(env.SCAN_BASE_URL)}  OPENAPI_BASE_URL=${shown(env.OPENAPI_BASE_URL)}`,
        `  secrets: ${env.SECRETS_SOURCE === 'file' ? env.SECRETS_FILE : env.SECRETS_SOURCE}`,
        '',
        'Try:',
        `  curl -H 'Authorization: Bearer ${token}' ${offline.baseUrl}/jobs`,
        '',
        'Ctrl-C stops everything.',
      ].join('\n'),
    );
  } catch (error) {
    await shutdown(
      1,
      `npm start failed: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

async function writeRebasedDemoSecret(emulatorUrl: string, emulatorPort: number): Promise<string> {
  const file = resolve(PROJECT_ROOT, `.local/demo-secret-${emulatorPort}.json`);
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, `${JSON.stringify(demoSecretFor(emulatorUrl), null, 2)}\n`);
  return file;
}

const invokedPath = process.argv[1] === undefined ? undefined : resolve(process.argv[1]);
if (invokedPath === fileURLToPath(import.meta.url)) {
  void main();
}
