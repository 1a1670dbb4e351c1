/**
 * The end-to-end suites that take the stage's default configuration, on one local stack
 * (sharedStackForSuite in ./offline.ts): the emulator, the delivery ledger's dynalite, the
 * hand-off bucket's stand-in and serverless offline, booted once for all of them instead of once
 * each. They run one after another in this file, each on an emulator reset at its start: each
 * is a file of local-stack/, and runs alone with `-t` and its describe's name, e.g.
 * `npx vitest run test/e2e/local-stack.e2e.test.ts -t 'serverless offline smoke'`.
 */
import { afterAll } from 'vitest';
import { stopSharedStack } from './offline.js';
import './local-stack/smoke.js';
import './local-stack/jobs.js';
import './local-stack/catalogue.js';
import './local-stack/webhooks.js';
import './local-stack/cors.js';
import './local-stack/docs.js';
import './local-stack/docs-browser.js';

afterAll(stopSharedStack, 30_000);
