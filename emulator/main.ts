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
  const jobs = integerFromEnv('EMULATOR_JOBS', undefined, 0);
  const reserved = integerFromEnv('EMULATOR_RESERVED', undefined, 0);
  const emulator = await startEmulator({
    port: integerFromEnv('EMULATOR_PORT', 4010, 0),
    vendor: process.env['GATEWAY_VENDOR']?.trim() || undefined,
    phaseDurationMs: integerFromEnv('EMULATOR_PHASE_MS', undefined, 1),
    latencyMs: integerFromEnv('EMULATOR_LATENCY_MS', undefined, 0),
    rateLimitPerSecond: integerFromEnv('EMULATOR_RATE_LIMIT', undefined, 1),
    scanJobs: jobs === undefined ? undefined : () => syntheticScanJobs({ count: jobs, reserved }),
  });
  console.log(`Platform emulator listening on ${emulator.url}`);

  const stop = (): void => {
    emulator.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error('Emulator did not close cleanly:', error);
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
