/**
 * The credentials of the demo secret (emulator/demo-secret.json), published with this repository:
 * anyone who reads it holds them. Its callers' tokens and its webhook's secret, as SHA-256 digests
 * (a token's, as `tokenSha256` holds it; a webhook secret's decoded key), so that no deployed
 * bundle carries the values. A deployed function refuses a secret that holds one (store.ts);
 * local runs, the emulator's, need them. test/unit/lib/secrets/demo-credentials.test.ts holds
 * these lists to the file.
 */
import { hash } from 'node:crypto';
import { webhookKeyOf } from './schema.ts';

/** The demo callers' tokens: demo, demo-reporting, demo-echo, demo-metered, demo-expired. */
const DEMO_TOKEN_SHA256: ReadonlySet<string> = new Set([
  '259f39a65bed7995738c2d489e14a8a7ae0b2fa1170f0c12f079986dbe284537',
  '697bb07c530ed57233fd801a681026f51c96a5bbb6ae8e36ac83df5a78e34e31',
  '8a49725b7faa827f21138700e1f302b98ba510c8cd657e41d9ecc19378ec6ed2',
  '80691271188f0b896921fbf07b24f884be9bfe4042fa34ef21a07e9fe4a8884a',
  'a7444edbb15abe9424021e00878d712a393eb87f0823cb8dc26c6c420dd37efa',
]);

/** The demo webhook's key (`demo`), decoded from its `whsec_` form. */
const DEMO_WEBHOOK_KEY_SHA256: ReadonlySet<string> = new Set([
  '50042ded48ccc7e8172029e0e29d23b1c6a73ed4fab51e849cee06003830ee52',
]);

/** Whether a caller's token digest (lower-case hex) is a demo caller's. */
export function isDemoTokenDigest(digest: string): boolean {
  return DEMO_TOKEN_SHA256.has(digest);
}

/** Whether a `whsec_` secret holds the demo webhook's key. */
export function isDemoWebhookSecret(secret: string): boolean {
  return DEMO_WEBHOOK_KEY_SHA256.has(hash('sha256', webhookKeyOf(secret), 'hex'));
}
