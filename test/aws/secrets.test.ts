/**
 * The `aws` secret source with the real Secrets Manager client against moto: reading and
 * validating, a rotated secret picked up after the platform refuses the old keys, and every
 * form of SECRET_ID (name, full ARN, partial ARN).
 */
import { PutSecretValueCommand } from '@aws-sdk/client-secrets-manager';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { demoSecretFor } from '../../emulator/index.js';
import { SecretError } from '../../lib/core/errors.js';
import { awsSecretSource } from '../../lib/secrets/sources.js';
import { SecretStore } from '../../lib/secrets/store.js';
import { emulatorForSuite } from '../helpers/emulator.js';
import { httpEvent, lambdaContext } from '../helpers/lambda.js';
import { emulatorEnv, loadHandlers } from '../helpers/platform.js';
import { awsEnv, clients, createSecret, unique, useAwsEnv } from './moto.js';

let restore: () => void;
beforeAll(() => {
  restore = useAwsEnv();
});
afterAll(() => restore());

describe('awsSecretSource against moto', () => {
  it('reads and validates the secret', async () => {
    const name = unique('svc/dev/platform');
    await createSecret(name, { iam: { accessKey: 'AK1', secretKey: 'SK1' } });
    const store = new SecretStore(awsSecretSource({ secretId: name }), { ttlMs: 60_000 });
    expect((await store.get()).iam?.accessKey).toBe('AK1');
  });

  it('names a missing secret by its id, never a value', async () => {
    const store = new SecretStore(awsSecretSource({ secretId: 'does-not-exist' }), {
      ttlMs: 1000,
    });
    const error = (await store.get().catch((e: unknown) => e)) as Error;
    expect(error).toMatchObject({ status: 503, code: '500' });
    expect(error.cause).toBeInstanceOf(SecretError);
    expect((error.cause as Error).message).toMatch(/Secrets Manager does-not-exist/);
  });

  it('refuses a stored document that does not validate, naming the field', async () => {
    const name = unique('malformed');
    await createSecret(name, { iam: { accessKey: 'AK' } });
    const store = new SecretStore(awsSecretSource({ secretId: name }), { ttlMs: 1000 });
    const error = (await store.get().catch((e: unknown) => e)) as Error;
    expect((error.cause as Error).message).toMatch(/iam\.secretKey/);
  });
});

describe('a deployed function reading its secret from Secrets Manager (moto)', () => {
  const emulator = emulatorForSuite();

  async function listJobsWith(secretId: string) {
    const { list } = await loadHandlers(
      { ...emulatorEnv(emulator), ...awsEnv(), SECRETS_SOURCE: 'aws', SECRET_ID: secretId },
      { list: 'functions/jobs/list.ts' },
    );
    return list;
  }

  it.each(['name', 'full ARN', 'partial ARN'] as const)(
    'finds the secret by its %s',
    async (form) => {
      const name = unique('gw/prod/platform');
      const arn = await createSecret(name, demoSecretFor(emulator.url));
      const secretId =
        form === 'name' ? name : form === 'full ARN' ? arn : arn.replace(/-[^-]+$/, '');
      const list = await listJobsWith(secretId);
      expect((await list(httpEvent('jobs-list.json'), lambdaContext())).statusCode).toBe(200);
    },
  );

  it('picks up a rotated secret once the platform refuses the old keys', async () => {
    const name = unique('gw/rotating');
    const secret = demoSecretFor(emulator.url) as { iam: { accessKey: string; secretKey: string } };
    await createSecret(name, secret);
    const list = await listJobsWith(name);
    expect((await list(httpEvent('jobs-list.json'), lambdaContext())).statusCode).toBe(200);

    // Rotation: a new key pair in Secrets Manager, the old one deactivated at the gateway.
    const rotated = {
      ...secret,
      iam: { accessKey: 'ROTATEDACCESSKEY0001', secretKey: 'rotated-secret-key' },
    };
    emulator.credentials.accessKeys.push({ ...rotated.iam, active: true });
    for (const pair of emulator.credentials.accessKeys) {
      if (pair.accessKey === secret.iam.accessKey) pair.active = false;
    }
    const client = clients.secrets();
    await client.send(
      new PutSecretValueCommand({ SecretId: name, SecretString: JSON.stringify(rotated) }),
    );
    client.destroy();
    // Refreshes are at most one per 5 s: the rotation comes later than the first fetch.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 10_000);
    try {
      // The cached secret is refused (401/200), fetched again, and the call signed anew.
      const answer = await list(httpEvent('jobs-list.json'), lambdaContext());
      expect(answer.statusCode).toBe(200);
      const signedWith = emulator.requests.map((r) => r.headers['x-platform-iam-access-key']);
      expect(signedWith.slice(-2)).toEqual([secret.iam.accessKey, 'ROTATEDACCESSKEY0001']);
    } finally {
      vi.useRealTimers();
      for (const pair of emulator.credentials.accessKeys) pair.active = true;
    }
  });
});
