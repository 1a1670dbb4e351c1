/**
 * Runs every HTTP function under `serverless offline` for an e2e suite, in front of the
 * embedded emulator, for one describe block:
 *
 *   const { emulator, offline } = offlineStackForSuite();
 *   ... fetch(`${offline.baseUrl}/health`) ... emulator.requests ...
 *
 * or on its own with startOffline(env) and offline.stop().
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
import type { Emulator } from '../../emulator/index.js';
import { launchOffline } from '../../scripts/local/offline.js';
import { DEMO_SECRETS_FILE } from '../../scripts/local/paths.js';
import { findFreePort } from '../../scripts/local/ports.js';
import { type S3StandIn, startLocalHandOff } from '../../scripts/local/s3-stand-in.js';
import { startLocalLedger } from '../../scripts/local-ledger.js';
import { startTestEmulator } from '../helpers/emulator.js';
import { checkAnswerAgainstDocument } from '../helpers/openapi-answers.js';
import { secretFile } from '../helpers/platform.js';
import { standIn } from '../helpers/stand-in.js';

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

/**
 * The stack of the describe block this is called in: the emulator, then serverless offline
 * pointed at it (scan jobs and the catalogue) with a secret file, the bundled demo secret
 * unless `secret` makes another from the running emulator. Started in a beforeAll registered
 * before the block's own, stopped after the block's tests; both fields stand in for the
 * running objects from then on.
 */
export function offlineStackForSuite(
  options: { secret?: (emulator: Emulator) => unknown; params?: readonly string[] } = {},
): OfflineStack {
  let emulator: Emulator | undefined;
  let offline: RunningOffline | undefined;
  beforeAll(async () => {
    emulator = await startTestEmulator();
    offline = await startOffline(
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
  }, BOOT_TIMEOUT_MS);
  afterAll(async () => {
    await offline?.stop();
    await emulator?.close();
    offline = undefined;
    emulator = undefined;
  }, 30_000);
  return {
    emulator: standIn('the e2e emulator', () => emulator),
    offline: standIn('serverless offline', () => offline),
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
      return { baseUrl: offline.baseUrl, output: offline.output, handOff: handOff.standIn, stop };
    } catch (error) {
      lastError = error;
      if (!(error instanceof Error) || !/EADDRINUSE|already in use/.test(error.message)) break;
    }
  }
  await ledger.close();
  await handOff.standIn.close();
  throw lastError;
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
