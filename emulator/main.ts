/**
 * Runs the emulator on its own: `node emulator/main.ts`.
 * EMULATOR_PORT [4010], GATEWAY_VENDOR [platform], EMULATOR_PHASE_MS [off]: scan jobs move one
 * phase per this many ms. EMULATOR_LATENCY_MS [0]: added to every API request.
 * EMULATOR_JOBS [off]: that many synthetic scan jobs (url https://load.example.com/) instead of
 * the demo set, EMULATOR_RESERVED [a quarter] of them reserved. EMULATOR_RATE_LIMIT [off]:
 * the gateway throttles above this many requests per second (429, errorCode 410).
 */
import { startEmulator, syntheticScanJobs } from './index.ts';

function integerFromEnv(
  name: string,
  fallback: number | undefined,
  min: number,
): number | undefined {
  const raw = process.env[name]?.trim();
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min) {
    throw new Error(`${name} must be an integer of at least ${min}, got "${raw}"`);
  }
  return Number(raw);
}

async function main(): Promise<void> {
  console.log(`Node ${process.version} runs the emulator.`);
  const jobs = integerFromEnv('EMULATOR_JOBS', undefined, 0);
  const reserved = integerFromEnv('EMULATOR_RESERVED', undefined, 0);
  const port = integerFromEnv('EMULATOR_PORT', 4010, 0);
  const emulator = await startEmulator({
    port,
    vendor: process.env['GATEWAY_VENDOR']?.trim() || undefined,
    phaseDurationMs: integerFromEnv('EMULATOR_PHASE_MS', undefined, 1),
    latencyMs: integerFromEnv('EMULATOR_LATENCY_MS', undefined, 0),
    rateLimitPerSecond: integerFromEnv('EMULATOR_RATE_LIMIT', undefined, 1),
    scanJobs: jobs === undefined ? undefined : () => syntheticScanJobs({ count: jobs, reserved }),
  }).catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    throw new Error(`Port ${port} is already in use on 127.0.0.1; choose another EMULATOR_PORT.`);
  });
  console.log(`Platform emulator listening on ${emulator.url}`);

  // A terminal's Ctrl-C reaches npm too, which passes it on: the first signal stops, the copy is
  // the same stop. Closed, the process exits 0 on SIGTERM, and ends by SIGINT itself on Ctrl-C,
  // as an interrupted program does (the shell sees 130).
  let stopping = false;
  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) return;
    stopping = true;
    emulator.close().then(
      () => {
        if (signal !== 'SIGINT') process.exit(0);
        process.removeAllListeners(signal);
        process.kill(process.pid, signal);
      },
      (error: unknown) => {
        console.error('Emulator did not close cleanly:', error);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
