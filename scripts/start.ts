/**
 * `npm start`: the embedded platform emulator (in this process) plus every HTTP function under
 * `serverless offline` (a child process, scripts/local/offline.ts), wired together with the
 * local defaults.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { demoSecretFor, startEmulator } from '../emulator/index.ts';
import { parseCommand, refused, stageParams, UsageError } from './local/args.ts';
import { watchBuildFolder } from './local/build-guard.ts';
import { followedCopy } from './local/demo-secret-copy.ts';
import { nodeLine } from './local/node-line.ts';
import { launchOffline, type OfflineProcess } from './local/offline.ts';
import { DEMO_SECRETS_FILE, PROJECT_ROOT } from './local/paths.ts';
import { localConfigurationProblems } from './local/preflight.ts';
import { startLocalHandOff } from './local/s3-stand-in.ts';
import { startLocalLedger } from './local-ledger.ts';

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

/**
 * The demo caller's token (the demo secret's caller with scope `*`) when the bundled demo secret
 * is in use; never any other secret.
 */
async function callerTokenHint(usesDemoSecret: boolean): Promise<string> {
  const placeholder = '<your caller token>';
  if (!usesDemoSecret) return placeholder;
  try {
    const secret = JSON.parse(await readFile(DEMO_SECRETS_FILE, 'utf8')) as {
      callers?: { token?: unknown; scopes?: unknown; notAfter?: unknown }[];
    };
    const demo = (secret.callers ?? []).find(
      (caller) =>
        Array.isArray(caller.scopes) &&
        caller.scopes.includes('*') &&
        caller.notAfter === undefined,
    );
    return typeof demo?.token === 'string' && demo.token !== '' ? demo.token : placeholder;
  } catch {
    return placeholder;
  }
}

/** A terminal's Ctrl-C reaches npm as well, which passes it on: a copy this soon is the same stop. */
const SAME_STOP_MS = 1000;

/** A start step that found npm start stopping: nothing more is started. */
class Stopping extends Error {}

async function main(): Promise<void> {
  console.log(nodeLine('the local stack'));
  let params: string[];
  try {
    params = startArgs(process.argv.slice(2));
  } catch (error) {
    process.exitCode = refused(error, USAGE);
    return;
  }
  const cleanups: Array<() => Promise<void>> = [];
  // What even a hasty stop removes, synchronously: what this run wrote in the project.
  const written: Array<() => void> = [];
  let exiting = false;
  const shutdown = async (code: number, message?: string, interrupted = false) => {
    if (exiting) return;
    exiting = true;
    if (message) console.error(message);
    for (const cleanup of cleanups.reverse()) {
      await cleanup().catch((error: unknown) => console.error('cleanup failed:', error));
    }
    for (const remove of written) remove();
    if (!interrupted) process.exit(code);
    // Ctrl-C: end by SIGINT itself, as an interrupted program does (the shell sees 130, and npm
    // ends by it in turn, saying nothing more).
    process.removeAllListeners('SIGINT');
    process.kill(process.pid, 'SIGINT');
  };
  let stopAskedAt: number | undefined;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (stopAskedAt === undefined) {
        stopAskedAt = performance.now();
        console.error(`\n${signal}: stopping...`);
        void shutdown(0, undefined, signal === 'SIGINT');
        return;
      }
      if (performance.now() - stopAskedAt < SAME_STOP_MS) return;
      // A second Ctrl-C: no more waiting, but nothing of this run left behind (the exit hook
      // kills serverless offline's process group).
      for (const remove of written) remove();
      process.exit(130);
    });
  }
  /** `starting`, closed by `close` when npm start stops, even while it is still starting. */
  const own = async <T>(starting: Promise<T>, close: (started: T) => Promise<void>): Promise<T> => {
    if (exiting) throw new Stopping();
    cleanups.push(async () => {
      const started = await starting.catch(() => undefined);
      if (started !== undefined) await close(started);
    });
    const started = await starting;
    if (exiting) throw new Stopping();
    return started;
  };

  try {
    const port = portFromEnv('PORT', 3000);
    const emulatorPort = portFromEnv('EMULATOR_PORT', 4010);
    const given = (name: string) => (process.env[name] ? process.env[name] : undefined);

    const env: NodeJS.ProcessEnv = { ...process.env, EMULATOR_PORT: String(emulatorPort) };
    let emulatorUrl: string | undefined;
    if (!given('SCAN_BASE_URL') || !given('OPENAPI_BASE_URL')) {
      const phase = given('EMULATOR_PHASE_MS');
      const emulator = await own(
        startEmulator({
          port: emulatorPort,
          vendor: given('GATEWAY_VENDOR') ?? 'platform',
          // Scan jobs move Reservation -> Progress -> Complete every this many ms (the watcher's demo).
          phaseDurationMs: phase ? positiveIntFromEnv('EMULATOR_PHASE_MS') : undefined,
        }).catch((error: unknown) => {
          throw portTaken(error, emulatorPort, 'EMULATOR_PORT');
        }),
        (started) => started.close(),
      );
      emulatorUrl = emulator.url;
      env.SCAN_BASE_URL = given('SCAN_BASE_URL') ?? emulator.url;
      env.OPENAPI_BASE_URL = given('OPENAPI_BASE_URL') ?? emulator.url;
    }
    // Webhook deliveries are claimed, and usage plans counted, in one store shared by every
    // worker (dynalite), as deployed.
    const ledger = await own(startLocalLedger(), (started) => started.close());
    Object.assign(env, ledger.env);
    // Answers too large for a Lambda response go to a stand-in of the hand-off bucket (unless
    // HAND_OFF_BUCKET names a bucket of the user's own), on HAND_OFF_PORT, PORT + 1 by default.
    let handOffUrl: string | undefined;
    if (!given('HAND_OFF_BUCKET')) {
      const handOffPort = portFromEnv('HAND_OFF_PORT', port < 65535 ? port + 1 : 0);
      const handOff = await own(
        startLocalHandOff(env, handOffPort).catch((error: unknown) => {
          throw portTaken(error, handOffPort, 'HAND_OFF_PORT');
        }),
        (started) => started.standIn.close(),
      );
      Object.assign(env, handOff.env);
      handOffUrl = handOff.standIn.endpoint;
    }
    env.SECRETS_SOURCE = given('SECRETS_SOURCE') ?? 'file';
    env.SECRETS_FILE = resolve(given('SECRETS_FILE') ?? DEMO_SECRETS_FILE);
    const usesDemoSecret = env.SECRETS_SOURCE === 'file' && env.SECRETS_FILE === DEMO_SECRETS_FILE;
    if (emulatorUrl && usesDemoSecret && emulatorPort !== 4010) {
      // The demo secret's action URLs name port 4010: the functions read a copy that names this
      // emulator, which follows the demo secret for as long as npm start runs.
      const url = emulatorUrl;
      const copy = followedCopy(
        DEMO_SECRETS_FILE,
        resolve(PROJECT_ROOT, `.local/demo-secret-${emulatorPort}.json`),
        (text) => `${JSON.stringify(demoSecretFor(url, text), null, 2)}\n`,
      );
      written.push(() => copy.remove());
      env.SECRETS_FILE = copy.file;
    }

    // What the functions would refuse on every call stops npm start now, with its cause.
    const problems = await localConfigurationProblems(env);
    if (problems.length > 0) {
      throw new Error(`the local configuration is invalid:\n  - ${problems.join('\n  - ')}`);
    }

    console.log(
      emulatorUrl
        ? `Platform emulator listening on ${emulatorUrl}`
        : 'Platform emulator not started: SCAN_BASE_URL and OPENAPI_BASE_URL are both set',
    );
    console.log(`Starting serverless offline on port ${port} (the first build takes a while)...`);

    // Its own build folder: no other command's build (a package, invoke local) deletes it.
    const workFolder = `.esbuild/start-${port}`;
    let offline: OfflineProcess | undefined;
    let rebuilding = false;
    let stopWatching = () => {};
    cleanups.push(async () => {
      stopWatching();
      await offline?.stop();
    });
    const boot = async (): Promise<OfflineProcess> => {
      if (exiting) throw new Stopping();
      const launched = await launchOffline({
        port,
        env,
        capture: false,
        quietUntilReady: true,
        workFolder,
        params,
      });
      offline = launched;
      await launched.ready;
      if (exiting) throw new Stopping();
      void launched.exited.then((code) => {
        if (rebuilding || offline !== launched) return;
        void shutdown(1, `serverless offline stopped unexpectedly (${code}); shutting down.`);
      });
      // A build deleted under us (rm -rf .esbuild, an older checkout's package): built again.
      stopWatching = watchBuildFolder(resolve(PROJECT_ROOT, workFolder), () => {
        void rebuild(launched);
      });
      return launched;
    };
    const rebuild = async (gone: OfflineProcess) => {
      if (exiting || rebuilding) return;
      rebuilding = true;
      console.error(
        `\nThe build in ${workFolder} was deleted while npm start ran; rebuilding (serverless offline restarts)...`,
      );
      try {
        await gone.stop();
        const again = await boot();
        console.log(`Functions ready again at ${again.baseUrl}`);
      } catch (error) {
        if (error instanceof Stopping) return;
        void shutdown(
          1,
          `npm start failed to rebuild: ${error instanceof Error ? error.message : String(error)}`,
        );
      } finally {
        rebuilding = false;
      }
    };
    const running = await boot();

    const token = await callerTokenHint(usesDemoSecret);
    console.log(
      [
        '',
        `Functions ready at ${running.baseUrl}`,
        `  SCAN_BASE_URL=${shown(env.SCAN_BASE_URL)}  OPENAPI_BASE_URL=${shown(env.OPENAPI_BASE_URL)}`,
        `  answers too large to return: ${handOffUrl ? `the hand-off bucket's stand-in at ${handOffUrl}` : `bucket ${env.HAND_OFF_BUCKET}`}`,
        `  secrets: ${env.SECRETS_SOURCE === 'file' ? env.SECRETS_FILE : env.SECRETS_SOURCE}`,
        '',
        'Try:',
        `  curl -H 'Authorization: Bearer ${token}' ${running.baseUrl}/jobs`,
        '',
        'Ctrl-C stops everything.',
      ].join('\n'),
    );
  } catch (error) {
    // Stopped while starting: the stop that began it ends the process.
    if (error instanceof Stopping || exiting) return;
    await shutdown(
      1,
      `npm start failed: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

const USAGE = 'usage: npm start [-- --param "<name>=<value>" ...]';

/**
 * Stage parameters of the command line, as serverless takes them, `name=value` each:
 * npm start -- --param "corsAllowedOrigins=...". Throws UsageError.
 */
export function startArgs(args: readonly string[]): string[] {
  const { values, positionals } = parseCommand(args, { param: { type: 'string', multiple: true } });
  if (positionals.length > 0) throw new UsageError(`unknown argument: ${positionals[0]}`);
  return stageParams(values.param).map(([name, value]) => `${name}=${value}`);
}

/** A port already taken said in one line, as offline.ts says it of PORT; other errors as they are. */
function portTaken(error: unknown, port: number, variable: string): Error {
  return (error as NodeJS.ErrnoException).code === 'EADDRINUSE'
    ? new Error(`Port ${port} is already in use on 127.0.0.1; choose another ${variable}.`)
    : (error as Error);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) void main();
