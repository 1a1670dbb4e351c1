/**
 * Runs the emulator on its own: `tsx emulator/main.ts`.
 * EMULATOR_PORT [4010], GATEWAY_VENDOR [platform], EMULATOR_PHASE_MS [off]: scan jobs move one
 * phase per this many ms.
 */
import { startEmulator } from './index.js';

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
  const emulator = await startEmulator({
    port: integerFromEnv('EMULATOR_PORT', 4010, 0),
    vendor: process.env['GATEWAY_VENDOR']?.trim() || undefined,
    phaseDurationMs: integerFromEnv('EMULATOR_PHASE_MS', undefined, 1),
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
