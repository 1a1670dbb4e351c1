/**
 * The embedded platform emulator: a local stand-in for the platform's API gateway and the
 * products behind it, following the spec's server-side rules. It never
 * ships inside a function bundle.
 */
import { setMaxListeners } from 'node:events';
import { type ActionActivations, ActivationLog, actionModule } from './actions/index.ts';
import { type CatalogueControl, catalogueModule } from './catalogue/index.ts';
import { AnswerSizes } from './core/answer-sizes.ts';
import { type ControlRoute, coreControlRoutes } from './core/control-api.ts';
import { type FaultController, FaultRegistry } from './core/faults.ts';
import { baseUrl, listen } from './core/http-server.ts';
import type { RecordedRequest } from './core/request-log.ts';
import { Router } from './core/router.ts';
import { demoCredentials, type EmulatorCredentials } from './credentials.ts';
import type { ApiModule } from './gateway/api-module.ts';
import { createGatewayDispatcher } from './gateway/dispatch.ts';
import { iamAuthenticator } from './gateway/iam-auth.ts';
import { RateLimiter } from './gateway/rate-limit.ts';
import { DEFAULT_VENDOR, type VendorHeaders, vendorHeaders } from './gateway/vendor-headers.ts';
import { createRequestHandler } from './request-handler.ts';
import { scanJobModule } from './scan-jobs/module.ts';
import { createScanJobStore, type ScanJobStore } from './scan-jobs/store.ts';
import type { ScanJobRecord } from './scan-jobs/types.ts';

export * from './actions/index.ts';
export type { Fault } from './core/faults.ts';
export { FaultValidationError } from './core/faults.ts';
export {
  demoCredentials,
  INACTIVE_ACCESS_KEY,
  INACTIVE_API_KEY,
  INACTIVE_SECRET_KEY,
} from './credentials.ts';
export { AUTH_DETAILS } from './gateway/iam-auth.ts';
export { MAX_BODY_BYTES, MAX_CLOCK_SKEW_MS } from './gateway/limits.ts';
export {
  signatureV2,
  stringToSign,
  verifySignatureV2,
} from './gateway/signature-v2.ts';
export { demoScanJobs } from './scan-jobs/demo-data.ts';
export { DEFAULT_MAX_LIMIT, type ScanJobListResult } from './scan-jobs/pagination.ts';
export { syntheticScanJobs } from './scan-jobs/synthetic-data.ts';
export type { ScanJobRecord } from './scan-jobs/types.ts';

export interface EmulatorOptions {
  /** 0 (default) = a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** The vendor word in header names (x-<vendor>-apigw-timestamp, ...); default `platform`. */
  vendor?: string;
  /** Default: derived from emulator/demo-secret.json (see demoCredentials). */
  credentials?: EmulatorCredentials;
  /** The gateway's clock in ms; default Date.now. */
  now?: () => number;
  /** When set, scan jobs advance one phase per this many ms (Reservation -> Progress -> Complete). */
  phaseDurationMs?: number;
  /** No per-request log lines. */
  quiet?: boolean;
  /**
   * Added to every API request before it is answered (control requests excluded): a round trip
   * to a real gateway, e.g. 50 ms from an AWS region. Default 0.
   */
  latencyMs?: number;
  /** The scan jobs to start from and to reset to; default the 25 demo jobs. */
  scanJobs?: () => ScanJobRecord[];
  /** The largest list or search page served; larger is refused with 400/901. Default 100. */
  maxPageSize?: number;
  /** The gateway's throttle, in requests per second over every API; default none. */
  rateLimitPerSecond?: number;
}

export interface Emulator {
  /** e.g. http://127.0.0.1:4010 */
  readonly url: string;
  readonly port: number;
  /** The header names this emulator uses for its vendor word. */
  readonly headers: VendorHeaders;
  /** Live: a test may deactivate a key while the emulator runs. */
  readonly credentials: EmulatorCredentials;
  readonly faults: FaultController;
  /**
   * Every gateway request received (control requests excluded), oldest first: the latest
   * MAX_RECORDED_REQUESTS (2,000) of them.
   */
  readonly requests: RecordedRequest[];
  /** How many gateway requests were received since the start or the last reset, uncapped. */
  readonly received: () => number;
  readonly scanJobs: ScanJobStore;
  /** The open API catalogue: a live CAPTCHA key's answer, for tests. */
  readonly catalogue: CatalogueControl;
  /** Every action and trigger activation started (function execution). */
  readonly actions: ActionActivations;
  /** Answers of a size a test asks for: a report, speech (WAV), a map image, an action's. */
  readonly answerSizes: AnswerSizes;
  /**
   * Jobs back to the demo set, faults (skew included) cleared, request log cleared, and requests
   * still held by a latency fault dropped.
   */
  reset(): void;
  /** Closes the server and all its sockets (keep-alive included). */
  close(): Promise<void>;
}

const DEFAULT_HOST = '127.0.0.1';
const KEEP_ALIVE_TIMEOUT_MS = 5000;

function checkPort(port: number): number {
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`The emulator port must be an integer from 0 to 65535, got ${port}`);
  }
  return port;
}

function controlRouterFor(
  modules: readonly ApiModule[],
  core: Parameters<typeof coreControlRoutes>[0],
): Router<ControlRoute> {
  return new Router<ControlRoute>([
    ...coreControlRoutes(core),
    ...modules.flatMap((module) => module.controlRoutes ?? []),
  ]);
}

export async function startEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  const host = options.host ?? DEFAULT_HOST;
  const port = checkPort(options.port ?? 0);
  const headers = vendorHeaders(options.vendor ?? DEFAULT_VENDOR);
  const credentials = options.credentials ?? demoCredentials();
  const now = options.now ?? Date.now;
  if (options.latencyMs !== undefined && !(options.latencyMs >= 0)) {
    throw new Error(`latencyMs must be 0 or more, got ${options.latencyMs}`);
  }
  const log = options.quiet ? () => {} : (line: string) => console.log(`[emulator] ${line}`);
  const onUnexpectedError = (error: unknown) => console.error('[emulator] unexpected error', error);

  const faults = new FaultRegistry();
  const requests: RecordedRequest[] = [];
  let received = 0;
  const scanJobs = createScanJobStore({
    now,
    phaseDurationMs: options.phaseDurationMs,
    seed: options.scanJobs,
  });
  const rateLimiter =
    options.rateLimitPerSecond === undefined
      ? undefined
      : new RateLimiter(options.rateLimitPerSecond, now);
  const actions = new ActivationLog();
  const answerSizes = new AnswerSizes();
  const catalogue = catalogueModule({ headers, credentials, sizes: answerSizes });
  const modules: ApiModule[] = [
    scanJobModule({
      store: scanJobs,
      authenticate: iamAuthenticator(headers, credentials),
      maxLimit: options.maxPageSize,
      sizes: answerSizes,
    }),
    catalogue,
    actionModule({
      log: actions,
      now,
      apiKeyHeader: headers.apiKey,
      credentials,
      sizes: answerSizes,
    }),
    // The sizes a test asks of answers: their control routes, and their reset.
    {
      name: 'answer-sizes',
      routes: [],
      controlRoutes: answerSizes.controlRoutes(),
      reset: () => answerSizes.reset(),
    },
  ];
  // Every request held by a latency fault listens to this signal; there may be many at once.
  const holding = () => {
    const controller = new AbortController();
    setMaxListeners(0, controller.signal);
    return controller;
  };
  let held = holding();
  let closed = false;
  const reset = (): void => {
    // Requests still held by a latency fault are dropped: none may act on the fresh state.
    held.abort();
    if (!closed) held = holding();
    for (const module of modules) module.reset();
    rateLimiter?.refill();
    faults.clear();
    requests.length = 0;
    received = 0;
  };
  const server = await listen(
    createRequestHandler({
      controlRouter: controlRouterFor(modules, { faults, requests, reset }),
      dispatch: createGatewayDispatcher(modules, onUnexpectedError),
      faults,
      requests,
      headers,
      now,
      held: () => held.signal,
      log,
      onUnexpectedError,
      latencyMs: options.latencyMs,
      rateLimiter,
      onReceived: () => {
        received += 1;
      },
    }),
    { host, port, keepAliveTimeoutMs: KEEP_ALIVE_TIMEOUT_MS },
  );

  return {
    url: baseUrl(host, server.port),
    port: server.port,
    headers,
    credentials,
    faults,
    requests,
    received: () => received,
    scanJobs,
    actions,
    catalogue,
    answerSizes,
    reset,
    close: async () => {
      closed = true;
      held.abort();
      await server.close();
    },
  };
}
