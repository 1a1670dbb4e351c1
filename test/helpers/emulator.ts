/**
 * The embedded emulator in tests: on a free port, quiet, and for a describe block, started
 * before its tests, reset before each one and closed after the last.
 */
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { type Emulator, type EmulatorOptions, startEmulator } from '../../emulator/index.ts';
import { standIn } from './stand-in.ts';

export function startTestEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  return startEmulator({ quiet: true, ...options });
}

/**
 * The emulator of the describe block this is called in: started in a beforeAll registered
 * before the block's own (which may use it), reset before each test (faults, request log,
 * scan jobs, activations, CAPTCHA keys), closed after the block's tests.
 */
export function emulatorForSuite(options: EmulatorOptions = {}): Emulator {
  let emulator: Emulator | undefined;
  beforeAll(async () => {
    emulator = await startTestEmulator(options);
  });
  beforeEach(() => {
    emulator?.reset();
  });
  afterAll(async () => {
    await emulator?.close();
    emulator = undefined;
  });
  return standIn('the emulator of a describe block', () => emulator);
}
