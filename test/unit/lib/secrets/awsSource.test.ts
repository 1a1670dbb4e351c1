import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { awsSecretSource } from '../../../../lib/secrets/sources.js';
import { SecretError, SecretStore } from '../../../../lib/secrets/store.js';
import { pointAwsSdkAt } from '../../../helpers/aws.js';
import {
  type SecretsManagerServer,
  startSecretsManagerServer,
} from '../../../helpers/secretsManagerServer.js';

/**
 * The `aws` source with the real Secrets Manager client, pointed at a loopback endpoint
 * through the SDK's own service-specific endpoint variable.
 */
describe('awsSecretSource against a loopback Secrets Manager', () => {
  let server: SecretsManagerServer;
  let restoreEnv: () => void;

  beforeAll(async () => {
    server = await startSecretsManagerServer();
    restoreEnv = pointAwsSdkAt('AWS_ENDPOINT_URL_SECRETS_MANAGER', server.endpoint);
  });

  afterAll(async () => {
    restoreEnv();
    await server.close();
  });

  it('reads and validates the secret with a signed GetSecretValue call', async () => {
    server.secrets.set(
      'svc/dev/platform',
      JSON.stringify({ iam: { accessKey: 'AK1', secretKey: 'SK1' } }),
    );
    const store = new SecretStore(awsSecretSource({ secretId: 'svc/dev/platform' }), {
      ttlMs: 60_000,
    });
    const secret = await store.get();
    expect(secret.iam?.accessKey).toBe('AK1');
    const call = server.calls.at(-1);
    expect(call?.target).toBe('secretsmanager.GetSecretValue');
    expect(call?.body.SecretId).toBe('svc/dev/platform');
    expect(call?.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDLOOPBACKTEST\/\d{8}\/us-east-1\/secretsmanager\/aws4_request/,
    );
  });

  it('picks up a rotated secret on refresh', async () => {
    server.secrets.set('rotating', JSON.stringify({ iam: { accessKey: 'OLD', secretKey: 'S' } }));
    let now = 0;
    const store = new SecretStore(awsSecretSource({ secretId: 'rotating' }), {
      ttlMs: 300_000,
      now: () => now,
    });
    const old = await store.get();
    server.secrets.set('rotating', JSON.stringify({ iam: { accessKey: 'NEW', secretKey: 'S' } }));
    now += 10_000;
    expect((await store.refresh(old)).iam?.accessKey).toBe('NEW');
  });

  it('reports a missing secret by its id, not by any value', async () => {
    const store = new SecretStore(awsSecretSource({ secretId: 'does-not-exist' }), { ttlMs: 1000 });
    const error = (await store.get().catch((e: unknown) => e)) as Error;
    expect(error).toMatchObject({ status: 503, code: '500' });
    expect(error.cause).toBeInstanceOf(SecretError);
    expect((error.cause as Error).message).toMatch(/Secrets Manager does-not-exist/);
  });

  it('validates what Secrets Manager returns', async () => {
    server.secrets.set('malformed', JSON.stringify({ iam: { accessKey: 'AK' } }));
    const store = new SecretStore(awsSecretSource({ secretId: 'malformed' }), { ttlMs: 1000 });
    const error = (await store.get().catch((e: unknown) => e)) as Error;
    expect((error.cause as Error).message).toMatch(/iam\.secretKey/);
  });
});
