/**
 * Runs every HTTP function under `serverless offline` for an e2e suite:
 *
 *   const offline = await startOffline({ SCAN_BASE_URL: emulator.url, ... });
 *   ... fetch(`${offline.baseUrl}/health`) ...
 *   await offline.stop();
 *
 * Each call gets its own free port (the Lambda invoke port is OS-assigned by serverless.yml) and
 * its own esbuild folder, so suites, and a running `npm start`, don't collide. The contract's
 * variables are not inherited from the shell that runs the tests, only taken from `env`, so a
 * developer's own SCAN_BASE_URL etc. can't leak into a test. stop() kills the whole process
 * group; if the test process ends without calling it, the group is killed anyway.
 *
 * Every answer a suite fetches from a running serverless offline is checked against the OpenAPI
 * document (test/helpers/openapi-answers.ts): a mismatch fails the fetch, and so the test.
 */
import { launchOffline } from '../../scripts/local/offline.js';
import { findFreePort } from '../../scripts/local/ports.js';
import { startLocalLedger } from '../../scripts/local-ledger.js';
import { checkAnswerAgainstDocument } from '../helpers/openapi-answers.js';

const CONTRACT_VARIABLES = [
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
];

export interface RunningOffline {
  /** http://127.0.0.1:<port>, no trailing slash. */
  baseUrl: string;
  /** serverless offline's stdout and stderr so far (for failure messages). */
  output(): string;
  /** Stops serverless offline and everything it started; safe to call twice. */
  stop(): Promise<void>;
}

export async function startOffline(
  env: Record<string, string> = {},
  options: { readyTimeoutMs?: number } = {},
): Promise<RunningOffline> {
  const inherited: NodeJS.ProcessEnv = { ...process.env };
  for (const name of CONTRACT_VARIABLES) delete inherited[name];
  // The webhook delivery ledger, shared by the workers, as npm start runs it.
  const ledger = await startLocalLedger();

  // A port can be taken between the probe and the bind; try a few.
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await findFreePort();
    try {
      const offline = await launchOffline({
        port,
        env: { ...inherited, ...ledger.env, ...env },
        capture: true,
        workFolder: `.esbuild/e2e-${port}`,
        readyTimeoutMs: options.readyTimeoutMs,
      });
      await offline.ready;
      checkAnswersFrom(offline.baseUrl);
      const stop = async () => {
        await offline.stop();
        await ledger.close();
      };
      return { baseUrl: offline.baseUrl, output: offline.output, stop };
    } catch (error) {
      lastError = error;
      if (!(error instanceof Error) || !/EADDRINUSE|already in use/.test(error.message)) break;
    }
  }
  await ledger.close();
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
