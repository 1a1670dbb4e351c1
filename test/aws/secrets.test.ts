/**
 * The `aws` secret source against moto: reading and validating with the real Secrets Manager
 * client, a rotated secret picked up after the platform refuses the old keys, and every form of
 * SECRET_ID (name, full ARN, partial ARN), read with the default deploy's signed request and
 * with the SDK.
 */
import { PutSecretValueCommand } from '@aws-sdk/client-secrets-manager';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { demoSecretFor } from '../../emulator/index.ts';
import { SecretError } from '../../lib/core/errors.ts';
import { awsSecretSource } from '../../lib/secrets/sources.ts';
import { SecretStore } from '../../lib/secrets/store.ts';
import { emulatorForSuite } from '../helpers/emulator.ts';
import { httpEvent, lambdaContext } from '../helpers/lambda.ts';
import { emulatorEnv, loadHandlers } from '../helpers/platform.ts';
import { awsEnv, clients, createSecret, unique, useAwsEnv } from './moto.ts';

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

  it('names a missing secret by its id, never a value; only an operator can mend it (500/900)', async () => {
    const store = new SecretStore(awsSecretSource({ secretId: 'does-not-exist' }), {
      ttlMs: 1000,
    });
    const error = (await store.get().catch((e: unknown) => e)) as Error;
    expect(error).toMatchObject({ status: 500, code: '900' });
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

  async function listJobsWith(secretId: string, reader: 'signed' | 'sdk' = 'signed') {
    const { list } = await loadHandlers(
      {
        ...emulatorEnv(emulator),
        ...awsEnv(),
        SECRETS_SOURCE: 'aws',
        SECRET_ID: secretId,
        SECRETS_READER: reader,
      },
      { list: 'functions/jobs/list.ts' },
    );
    return list;
  }

  // signed: the default deploy's one GetSecretValue request, sent to AWS_ENDPOINT_URL (moto).
  it.each([
    ['name', 'signed'],
    ['full ARN', 'signed'],
    ['partial ARN', 'signed'],
    ['name', 'sdk'],
    ['full ARN', 'sdk'],
    ['partial ARN', 'sdk'],
  ] as const)('finds the secret by its %s, read %s', async (form, reader) => {
    const name = unique('gw/prod/platform');
    const arn = await createSecret(name, demoSecretFor(emulator.url));
    const secretId =
      form === 'name' ? name : form === 'full ARN' ? arn : arn.replace(/-[^-]+$/, '');
    const list = await listJobsWith(secretId, reader);
    expect((await list(httpEvent('jobs-list.json'), lambdaContext())).statusCode).toBe(200);
  });

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

describe('one secret per capability (moto), each function reading only its own', () => {
  const emulator = emulatorForSuite();
  let logLines: string[];
  beforeEach(() => {
    logLines = [];
    vi.spyOn(console, 'log').mockImplementation((line: unknown) => {
      logLines.push(String(line));
    });
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  /** The demo secret split by capability, each part a secret of its own. */
  async function splitSecrets(change: (parts: Record<string, object>) => void = () => {}) {
    const demo = demoSecretFor(emulator.url) as Record<string, unknown>;
    const parts: Record<string, object> = {
      SIGNING_SECRET_ID: { iam: demo.iam, apiKey: demo.apiKey },
      CATALOGUE_SECRET_ID: { openapi: demo.openapi },
      EXECUTION_SECRET_ID: { actions: demo.actions, triggers: demo.triggers },
      WEBHOOKS_SECRET_ID: { webhooks: demo.webhooks },
      CALLERS_SECRET_ID: { callers: demo.callers },
    };
    change(parts);
    const ids: Record<string, string> = {};
    for (const [setting, part] of Object.entries(parts)) {
      ids[setting] = unique(`gw/split/${setting.split('_')[0]!.toLowerCase()}`);
      await createSecret(ids[setting], part);
    }
    return ids;
  }

  const load = <const T extends Record<string, string>>(ids: Record<string, string>, modules: T) =>
    loadHandlers({ ...emulatorEnv(emulator), ...awsEnv(), SECRETS_SOURCE: 'aws', ...ids }, modules);

  it('serves each function from the secrets of what it uses, and none other', async () => {
    const ids = await splitSecrets();
    // Secrets a function does not use may as well not exist.
    const { catalogue } = await load(
      { ...ids, SIGNING_SECRET_ID: 'no-such-secret', WEBHOOKS_SECRET_ID: 'no-such-secret' },
      { catalogue: 'functions/catalogue/utility.ts' },
    );
    expect((await catalogue(httpEvent('catalogue-utility.json'), lambdaContext())).statusCode).toBe(
      200,
    );
    const { list } = await load(
      { ...ids, CATALOGUE_SECRET_ID: 'no-such-secret', WEBHOOKS_SECRET_ID: 'no-such-secret' },
      { list: 'functions/jobs/list.ts' },
    );
    expect((await list(httpEvent('jobs-list.json'), lambdaContext())).statusCode).toBe(200);
    expect(logLines.join('\n')).not.toContain('no-such-secret');
  });

  it("refuses a secret that holds what its capability does not (signing keys in the catalogue's), naming the field", async () => {
    const ids = await splitSecrets((parts) => {
      const signing = parts.SIGNING_SECRET_ID as { iam: object };
      parts.CATALOGUE_SECRET_ID = { ...parts.CATALOGUE_SECRET_ID, iam: signing.iam };
    });
    const { catalogue } = await load(ids, { catalogue: 'functions/catalogue/utility.ts' });
    const result = await catalogue(httpEvent('catalogue-utility.json'), lambdaContext());
    // A configuration only an operator can mend: 500/900, not "try again later".
    expect(result.statusCode).toBe(500);
    expect(emulator.requests).toHaveLength(0);
    const logged = logLines.join('\n');
    expect(logged).toContain('iam: not allowed here (this secret holds openapi)');
    expect(logged).not.toContain('DEMOSECRETKEY');
  });
});
