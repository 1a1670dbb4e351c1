/**
 * The demo secret's credentials, as digests (lib/secrets/demo-credentials.ts), held to the file
 * they come from: every demo caller's token and every demo webhook's secret is known, so that a
 * caller or a webhook added to the demo is refused by deployed functions too.
 */
import { hash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  isDemoTokenDigest,
  isDemoWebhookSecret,
} from '../../../../lib/secrets/demo-credentials.ts';
import type { PlatformSecret } from '../../../../lib/secrets/schema.ts';
import { webhookSecretsOf } from '../../../../lib/secrets/schema.ts';

const demo = JSON.parse(
  readFileSync(path.resolve(import.meta.dirname, '../../../../emulator/demo-secret.json'), 'utf8'),
) as PlatformSecret;

describe('the demo credentials', () => {
  it("know every demo caller's token, by its digest", () => {
    expect(demo.callers?.length).toBeGreaterThan(0);
    for (const caller of demo.callers ?? []) {
      expect(isDemoTokenDigest(hash('sha256', caller.token ?? '', 'hex')), caller.id).toBe(true);
    }
  });

  it("know every demo webhook's secret", () => {
    const secrets = Object.values(demo.webhooks ?? {}).flatMap(webhookSecretsOf);
    expect(secrets.length).toBeGreaterThan(0);
    for (const secret of secrets) expect(isDemoWebhookSecret(secret)).toBe(true);
  });

  it('take no other token or secret for a demo one', () => {
    expect(isDemoTokenDigest(hash('sha256', 'a-token-of-this-stage-only-0123456789', 'hex'))).toBe(
      false,
    );
    expect(isDemoWebhookSecret(`whsec_${Buffer.alloc(32, 9).toString('base64')}`)).toBe(false);
  });
});
