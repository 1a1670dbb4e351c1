/**
 * The end-to-end suites that take the stage's default configuration, on one local stack
 * (sharedStackForSuite in ./offline.ts): the emulator, the delivery ledger's dynalite, the
 * hand-off bucket's stand-in and serverless offline, booted once for all of them instead of once
 * each. They run one after another in this file, each on an emulator reset at its start: each
 * is a file of local-stack/, and runs alone with `-t` and its describe's name, e.g.
 * `npx vitest run test/e2e/local-stack.e2e.test.ts -t 'serverless offline smoke'`.
 */
import { afterAll } from 'vitest';
import { stopSharedStack } from './offline.ts';
import './local-stack/smoke.ts';
import './local-stack/jobs.ts';
import './local-stack/catalogue.ts';
import './local-stack/webhooks.ts';
import './local-stack/cors.ts';
import './local-stack/docs.ts';
import './local-stack/docs-browser.ts';

afterAll(stopSharedStack, 30_000);
