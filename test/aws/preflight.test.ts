/**
 * `npm run preflight` and `npm run split-secret` with credentials, against moto (and the front
 * that answers Lambda's GetAccountSettings, which moto lacks: scripts/rehearse/stand-in-aws.ts):
 * what the account holds for a stage, read-only, each problem with its fix and no secret's value.
 */
import { hash, randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CreateRoleCommand, IAMClient } from '@aws-sdk/client-iam';
import { PutSecretValueCommand } from '@aws-sdk/client-secrets-manager';
import { CreateTopicCommand, SNSClient } from '@aws-sdk/client-sns';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { main as preflightMain } from '../../scripts/preflight.ts';
import { type StandInAws, startAccountSettingsFront } from '../../scripts/rehearse/stand-in-aws.ts';
import { main as splitMain } from '../../scripts/split-secret.ts';
import { clients, createSecret, useAwsEnv } from './moto.ts';

const REGION = 'us-east-1';
const STAGE = `pf${randomUUID().slice(0, 6)}`;
const TOPIC = `arn:aws:sns:${REGION}:123456789012:${STAGE}-on-call`;
const ROLE = `arn:aws:iam::123456789012:role/${STAGE}-on-call`;
const CAPABILITIES = ['signing', 'catalogue', 'execution', 'webhooks', 'callers'];
const FLAGS = [
  '--stage',
  STAGE,
  `--param=alarmTopicArn=${TOPIC}`,
  `--param=redrivePrincipalArn=${ROLE}`,
];

let restore: () => void;
let front: StandInAws | undefined;
let dir: string;
const secretKey = randomBytes(30).toString('base64');

/** A document the stage can use, with values that must never be printed. */
const document = () => ({
  iam: { accessKey: 'AKIAPREFLIGHT0000001', secretKey },
  openapi: { clientId: 'prodclient', clientSecret: randomBytes(30).toString('base64') },
  actions: { hello: { url: 'https://api.example.com/fx7h2k/prod/hello' } },
  webhooks: { github: { secret: `whsec_${randomBytes(32).toString('base64')}`, action: 'hello' } },
  callers: [
    { id: 'reporting', tokenSha256: hash('sha256', randomBytes(32), 'hex'), scopes: ['jobs:read'] },
  ],
});

/** The front for an account of `limit` concurrent executions, where the SDK goes. */
async function account(limit: number): Promise<void> {
  await front?.close();
  front = await startAccountSettingsFront(inject('motoEndpoint'), limit);
  process.env.AWS_ENDPOINT_URL = front.endpoint;
}

async function run(
  main: (
    args: string[],
    out: (line: string) => void,
    err: (line: string) => void,
  ) => Promise<number>,
  args: string[],
) {
  const lines: string[] = [];
  const code = await main(
    args,
    (line) => lines.push(line),
    (line) => lines.push(line),
  );
  return { code, out: lines.join('\n'), failed: lines.filter((line) => line.startsWith('  FAIL')) };
}

beforeAll(async () => {
  restore = useAwsEnv();
  Object.assign(process.env, {
    AWS_EC2_METADATA_DISABLED: 'true',
    SCAN_BASE_URL: 'https://wsc.apigw.example.com',
    OPENAPI_BASE_URL: 'https://openapi.apigw.example.com',
  });
  dir = await mkdtemp(path.join(tmpdir(), 'preflight-aws-'));
  await account(1000);
});
afterAll(async () => {
  await front?.close();
  restore();
  await rm(dir, { recursive: true, force: true });
});

describe('npm run preflight with credentials (moto)', { timeout: 60_000 }, () => {
  it('names every secret, the topic and the principal an empty account lacks, each with its fix', async () => {
    const { code, failed } = await run(preflightMain, FLAGS);
    expect(code).toBe(1);
    for (const capability of CAPABILITIES) {
      expect(failed).toContainEqual(
        expect.stringContaining(
          // In the stack's region, whatever region the AWS CLI's profile names.
          `the secret platform-gateway/${STAGE}/${capability} does not exist in ${REGION}: create it: aws secretsmanager create-secret --name platform-gateway/${STAGE}/${capability} --secret-string file://secrets/${capability}.json --region ${REGION}`,
        ),
      );
    }
    expect(failed).toContainEqual(
      expect.stringContaining(
        `The alarm topic ${TOPIC} does not exist: create it (aws sns create-topic --name ${STAGE}-on-call --region ${REGION},`,
      ),
    );
    expect(failed).toContainEqual(
      expect.stringContaining(
        `The redrive principal ${ROLE} does not exist: create the on-call role`,
      ),
    );
    expect(failed).toHaveLength(7);
  });

  it('names a missing region once, and looks for no secret in a region that may be the wrong one', async () => {
    const saved = { ...process.env };
    delete process.env.AWS_REGION;
    delete process.env.AWS_DEFAULT_REGION;
    try {
      const { code, out, failed } = await run(preflightMain, FLAGS);
      expect(code).toBe(1);
      // One line about the region, and no secret to create in one that may be the wrong one.
      expect(failed.filter((line) => /No region|does not exist in/.test(line))).toEqual([
        expect.stringContaining(
          `FAIL  No region is set: the stack would go to ${REGION}, serverless.yml's default`,
        ),
      ]);
      expect(out).not.toContain('does not exist in');
      expect(out).toContain(
        `note  the secrets and the Lambda concurrency not looked up in ${REGION}: the region problem above comes first`,
      );
    } finally {
      process.env = saved;
    }
  });

  it('split-secret prints create-secret for a secret that does not exist, put-secret-value for one that does', async () => {
    const input = path.join(dir, 'secret.json');
    await writeFile(input, JSON.stringify(document()));
    await createSecret(`platform-gateway/${STAGE}/signing`, {
      iam: { accessKey: 'old', secretKey: 'old' },
    });
    const { code, out } = await run(splitMain, [
      input,
      path.join(dir, 'parts'),
      `--stage=${STAGE}`,
      '--empty=execution',
    ]);
    expect(code).toBe(0);
    expect(out).toContain(
      `aws secretsmanager put-secret-value --region ${REGION} --secret-id platform-gateway/${STAGE}/signing --secret-string file://${path.join(dir, 'parts', 'signing.json')}`,
    );
    for (const capability of CAPABILITIES.filter((each) => each !== 'signing')) {
      expect(out).toContain(
        `aws secretsmanager create-secret --region ${REGION} --name platform-gateway/${STAGE}/${capability} --secret-string`,
      );
    }
  });

  it('finds nothing once the account holds what the stage needs, and prints no value', async () => {
    const secrets = clients.secrets();
    for (const capability of CAPABILITIES) {
      const text = await readFile(path.join(dir, 'parts', `${capability}.json`), 'utf8');
      if (capability === 'signing') {
        await secrets.send(
          new PutSecretValueCommand({
            SecretId: `platform-gateway/${STAGE}/signing`,
            SecretString: text,
          }),
        );
      } else {
        await createSecret(`platform-gateway/${STAGE}/${capability}`, JSON.parse(text));
      }
    }
    secrets.destroy();
    const sns = new SNSClient({ region: REGION });
    await sns.send(new CreateTopicCommand({ Name: `${STAGE}-on-call` }));
    sns.destroy();
    const iam = new IAMClient({ region: REGION });
    await iam.send(
      new CreateRoleCommand({
        RoleName: `${STAGE}-on-call`,
        AssumeRolePolicyDocument: '{"Version":"2012-10-17","Statement":[]}',
      }),
    );
    iam.destroy();
    const { code, out } = await run(preflightMain, FLAGS);
    expect(out).not.toContain('FAIL');
    expect(code).toBe(0);
    expect(out).toContain(`5 secret(s) exist and parse: platform-gateway/${STAGE}/signing`);
    expect(out).toContain(`alarm topic ${TOPIC} exists`);
    expect(out).toContain(`redrive principal ${ROLE} exists`);
    expect(out).toContain(
      'Lambda concurrency: the stage reserves 140 (cancelReservedJobs 10, getJobReport 10, invokeAction 20, fireTrigger 10, receiveWebhook 50, catalogueLanguage 10, catalogueMaps 20, catalogueCaptcha 10); the account has 1000 of 1000 unreserved',
    );
    expect(out).not.toContain(secretKey);
  });

  it('names an API the endpoint does not implement, and the check it skipped (moto has no Lambda GetAccountSettings)', async () => {
    const endpoint = inject('motoEndpoint');
    process.env.AWS_ENDPOINT_URL = endpoint;
    try {
      const { code, out } = await run(preflightMain, FLAGS);
      expect(out).toContain(
        `  note  this endpoint (${endpoint}) does not implement Lambda GetAccountSettings, so the Lambda concurrency the stage reserves was not checked`,
      );
      expect(out).not.toMatch(/Deserialization|\$response|check the credentials and the region/);
      expect(out).not.toContain('FAIL');
      expect(code).toBe(0);
    } finally {
      await account(1000);
    }
  });

  it("names a secret that holds a demo caller's token, by its field", async () => {
    const demo = JSON.parse(
      await readFile(path.resolve(import.meta.dirname, '../../emulator/demo-secret.json'), 'utf8'),
    );
    const secrets = clients.secrets();
    await secrets.send(
      new PutSecretValueCommand({
        SecretId: `platform-gateway/${STAGE}/callers`,
        SecretString: JSON.stringify({ callers: demo.callers.slice(0, 1) }),
      }),
    );
    const { code, failed, out } = await run(preflightMain, FLAGS);
    expect(code).toBe(1);
    expect(failed).toEqual([
      expect.stringContaining(
        `the secret platform-gateway/${STAGE}/callers: callers.0 (demo) holds a demo caller's token`,
      ),
    ]);
    expect(out).not.toContain(demo.callers[0].token);
    await secrets.send(
      new PutSecretValueCommand({
        SecretId: `platform-gateway/${STAGE}/callers`,
        SecretString: await readFile(path.join(dir, 'parts', 'callers.json'), 'utf8'),
      }),
    );
    secrets.destroy();
  });

  it('names the concurrency an account of 10 cannot give, with the params that fix it', async () => {
    await account(10);
    try {
      const { code, failed } = await run(preflightMain, FLAGS);
      expect(code).toBe(1);
      expect(failed).toEqual([
        expect.stringContaining(
          'Lambda concurrency: the stage reserves 140 (cancelReservedJobs 10, getJobReport 10, invokeAction 20, fireTrigger 10, receiveWebhook 50, catalogueLanguage 10, catalogueMaps 20, catalogueCaptcha 10); the account has 10 of 10 unreserved, and Lambda keeps 100 unreserved, so the account can reserve 0 more where the stage needs 140: pass --param="reserveConcurrency=false" to reserve none, or lower values that total at most 0 (--param="cancelReservedConcurrency=<n>" --param="getJobReportConcurrency=<n>" --param="invokeActionConcurrency=<n>" --param="fireTriggerConcurrency=<n>" --param="receiveWebhookConcurrency=<n>" --param="catalogueLanguageConcurrency=<n>" --param="catalogueMapsConcurrency=<n>" --param="catalogueCaptchaConcurrency=<n>")',
        ),
      ]);
      const none = await run(preflightMain, [...FLAGS, '--param=reserveConcurrency=false']);
      expect(none.failed).toEqual([]);
      expect(none.code).toBe(0);
    } finally {
      await account(1000);
    }
  });
});
