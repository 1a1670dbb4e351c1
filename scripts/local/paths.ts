/** Where a local run finds the project and its demo secret. */
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const DEMO_SECRETS_FILE = resolve(PROJECT_ROOT, 'emulator/demo-secret.json');
