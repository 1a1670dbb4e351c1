/**
 * Runs every HTTP function under `serverless offline` for an e2e suite, in front of the
 * embedded emulator, for one describe block:
 *
 *   const { emulator, offline } = sharedStackForSuite();
 *   ... fetch(`${offline.baseUrl}/health`) ... emulator.requests ...
 *
 * sharedStackForSuite() is the one stack of the suites that take the default configuration
 * (test/e2e/local-stack.e2e.test.ts runs them one after another): booted once, for the first
 * of them. startOffline(env, { params }) boots one on its own, for a stage's own settings
 * (stage-settings.e2e.test.ts), stopped with offline.stop().
 *
 * Each call gets its own free port (the Lambda invoke port is OS-assigned by serverless.yml) and
 * its own esbuild folder, so suites, and a running `npm start`, don't collide. The variables
 * the functions read are not inherited from the shell that runs the tests, only taken from `env`, so a
 * developer's own SCAN_BASE_URL etc. can't leak into a test. stop() kills the whole process
 * group; if the test process ends without calling it, the group is killed anyway.
 *
 * Every answer a suite fetches from a running serverless offline is checked against the OpenAPI
 * document (test/helpers/openapi-answers.ts): a mismatch fails the fetch, and so the test.
 */
import { afterAll, beforeAll } from 'vitest';
import { demoSecretFor, type Emulator } from '../../emulator/index.ts';
import { launchOffline, type OfflineProcess } from '../../scripts/local/offline.ts';
import { DEMO_SECRETS_FILE } from '../../scripts/local/paths.ts';
import { findFreePort } from '../../scripts/local/ports.ts';
import { type S3StandIn, startLocalHandOff } from '../../scripts/local/s3-stand-in.ts';
import { startLocalLedger } from '../../scripts/local-ledger.ts';
import { startTestEmulator } from '../helpers/emulator.ts';
import { checkAnswerAgainstDocument } from '../helpers/openapi-answers.ts';
import { secretFile } from '../helpers/platform.ts';
import { standIn } from '../helpers/stand-in.ts';

/** The variables the functions read (lib/core/config.ts), and the ports: never inherited. */
const FUNCTION_VARIABLES = [
  'PORT',
  'EMULATOR_PORT',
  'SCAN_BASE_URL',
  'OPENAPI_BASE_URL',
  'GATEWAY_VENDOR',
  'SECRETS_SOURCE',
  'SECRETS_FILE',
  'SECRET_ID',
  'SECRETS_TTL_SECONDS',
  'OPENAPI_SERVICE_URLS',
  'UPSTREAM_TIMEOUT_MS',
  'HAND_OFF_BUCKET',
  'HAND_OFF_MAX_MB',
  'HAND_OFF_PORT',
];

export interface RunningOffline {
  /** http://127.0.0.1:<port>, no trailing slash. */
  baseUrl: string;
  /** serverless offline's stdout and stderr so far (for failure messages). */
  output(): string;
  /**
   * The same serverless offline, whose output() begins here: what a suite of the shared stack
   * sees of it (the lines of its own requests, not those of the suites before it).
   */
  fromHere(): RunningOffline;
  /** The hand-off bucket's stand-in the functions store large answers in. */
  readonly handOff: S3StandIn;
  /** Stops serverless offline and everything it started; safe to call twice. */
  stop(): Promise<void>;
}

/** The first esbuild build of every function plus serverless offline's start-up. */
const BOOT_TIMEOUT_MS = 180_000;

export interface OfflineStack {
  /** The embedded emulator that the functions call, on a free port. */
  readonly emulator: Emulator;
  /** serverless offline with every HTTP function, in front of it. */
  readonly offline: RunningOffline;
}

interface StackOptions {
  /** The secret the functions read, made from the running emulator; the demo secret if unset. */
  readonly secret?: (emulator: Emulator) => unknown;
  /** Stage parameters (`name=value`, serverless's `--param`). */
  readonly params?: readonly string[];
}

/**
 * The shared stack's settings: the demo secret with this emulator's URLs, so that its actions
 * and webhooks run on it; the stage's default parameters.
 */
const SHARED: StackOptions = { secret: (emulator) => demoSecretFor(emulator.url) };
let shared: Promise<RunningStack> | undefined;

/**
 * The shared stack, for the describe block this is called in: booted by the first block that
 * asks (in its beforeAll), kept for every block after it until stopSharedStack(). Each block
 * starts on an emulator as fresh as a new one (reset: scan jobs, activations, CAPTCHA keys,
 * answer sizes, faults, the request log) and sees serverless offline's output from its own start.
 * What the functions keep from one block to the next is what a warm container keeps: the
 * secret, the usage counted in the stack's dynalite (a block reads it before and after), the
 * webhook deliveries claimed (each block's are its own ids).
 */
export function sharedStackForSuite(): OfflineStack {
  let stack: RunningStack | undefined;
  beforeAll(async () => {
    shared ??= startStack(SHARED);
    const running = await shared;
    running.emulator.reset();
    stack = { ...running, offline: running.offline.fromHere() };
  }, BOOT_TIMEOUT_MS);
  afterAll(() => {
    stack = undefined;
  });
  return standInsFor(() => stack);
}

/** Stops the shared stack (after the last block that uses it); safe when none was started. */
export async function stopSharedStack(): Promise<void> {
  const running = await shared?.catch(() => undefined);
  shared = undefined;
  await running?.stop();
}

interface RunningStack extends OfflineStack {
  stop(): Promise<void>;
}

async function startStack(options: StackOptions): Promise<RunningStack> {
  const emulator = await startTestEmulator();
  try {
    const offline = await startOffline(
      {
        SCAN_BASE_URL: emulator.url,
        OPENAPI_BASE_URL: emulator.url,
        SECRETS_SOURCE: 'file',
        SECRETS_FILE: options.secret
          ? await secretFile(options.secret(emulator))
          : DEMO_SECRETS_FILE,
      },
      { params: options.params },
    );
    const stop = async () => {
      await offline.stop();
      await emulator.close();
    };
    return { emulator, offline, stop };
  } catch (error) {
    await emulator.close();
    throw error;
  }
}

function standInsFor(current: () => OfflineStack | undefined): OfflineStack {
  return {
    emulator: standIn('the e2e emulator', () => current()?.emulator),
    offline: standIn('serverless offline', () => current()?.offline),
  };
}

export async function startOffline(
  env: Record<string, string> = {},
  options: { readyTimeoutMs?: number; params?: readonly string[] } = {},
): Promise<RunningOffline> {
  const inherited: NodeJS.ProcessEnv = { ...process.env };
  for (const name of FUNCTION_VARIABLES) delete inherited[name];
  // The webhook delivery ledger, shared by the workers, and the hand-off bucket's stand-in, as
  // npm start runs them.
  const ledger = await startLocalLedger();
  const handOff = await startLocalHandOff({ ...inherited, ...ledger.env });

  // A port can be taken between the probe and the bind; try a few.
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await findFreePort();
    try {
      const offline = await launchOffline({
        port,
        env: { ...inherited, ...ledger.env, ...handOff.env, ...env },
        capture: true,
        workFolder: `.esbuild/e2e-${port}`,
        readyTimeoutMs: options.readyTimeoutMs,
        params: options.params,
      });
      await offline.ready;
      checkAnswersFrom(offline.baseUrl);
      const stop = async () => {
        await offline.stop();
        await ledger.close();
        await handOff.standIn.close();
      };
      return runningFrom(offline, 0, { handOff: handOff.standIn, stop });
    } catch (error) {
      lastError = error;
      if (!(error instanceof Error) || !/EADDRINUSE|already in use/.test(error.message)) break;
    }
  }
  await ledger.close();
  await handOff.standIn.close();
  throw lastError;
}

/** serverless offline as a suite sees it: its output from `mark` (characters written) on. */
function runningFrom(
  offline: OfflineProcess,
  mark: number,
  parts: Pick<RunningOffline, 'handOff' | 'stop'>,
): RunningOffline {
  return {
    baseUrl: offline.baseUrl,
    ...parts,
    output: () => {
      const text = offline.output();
      return text.slice(Math.max(0, text.length - (offline.written() - mark)));
    },
    fromHere: () => runningFrom(offline, offline.written(), parts),
  };
}

const checkedBases = new Set<string>();

function checkAnswersFrom(baseUrl: string): void {
  const first = checkedBases.size === 0;
  checkedBases.add(baseUrl);
  if (!first) return;
  const fetchAnswer = globalThis.fetch;
  globalThis.fetch = async (input, init) => {
    const response = await fetchAnswer(input, init);
    const request = input instanceof Request ? input : undefined;
    const url = new URL(request?.url ?? String(input));
    if (![...checkedBases].some((base) => url.href.startsWith(`${base}/`))) return response;
    await checkAnswerAgainstDocument({
      method: init?.method ?? request?.method ?? 'GET',
      path: url.pathname,
      status: response.status,
      contentType: response.headers.get('content-type') ?? undefined,
      body: Buffer.from(await response.clone().arrayBuffer()).toString('latin1'),
    });
    return response;
  };
}
