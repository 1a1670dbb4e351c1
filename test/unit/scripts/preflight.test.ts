/**
 * `npm run preflight` offline (scripts/preflight.ts): serverless.yml resolved for the stage by the
 * framework itself, the settings a deploy refuses, the region of every ARN parameter, and a
 * directory of secret documents as `npm run split-secret` writes them. Each problem one line with
 * its fix; the exit code says whether a deploy would work. (Its checks of the account, with
 * credentials: test/aws/preflight.test.ts, against moto.)
 */
import { hash, randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DeployFlags, resolvingOnce } from '../../../scripts/deploy/stage.ts';
import { main } from '../../../scripts/preflight.ts';
import { splitSecret } from '../../../scripts/split-secret.ts';
import { DEMO_SECRET_FILE } from '../../helpers/platform.ts';

const TOPIC = 'arn:aws:sns:eu-west-1:123456789012:platform-gateway-on-call';
const ROLE = 'arn:aws:iam::123456789012:role/platform-gateway-prod-on-call';
const SAVED = { ...process.env };
let dir: string;
/**
 * serverless.yml resolved by the framework (`serverless print`) once for each set of flags and
 * environment: the runs of the same stage and flags that differ only in the secret directory
 * read one resolution.
 */
const resolve = resolvingOnce();

async function preflight(args: string[]): Promise<{ code: number; out: string; lines: string[] }> {
  const lines: string[] = [];
  const code = await main(
    [...args, '--offline'],
    (line) => lines.push(line),
    (line) => lines.push(line),
    resolve,
  );
  return { code, out: lines.join('\n'), lines };
}

/** A document a prod stage can use: fresh credentials, https URLs, the caller by its digest. */
function productionSecret() {
  return {
    iam: { accessKey: 'AKIAPRODUCTION000001', secretKey: randomBytes(30).toString('base64') },
    openapi: { clientId: 'prodclient', clientSecret: randomBytes(30).toString('base64') },
    actions: { hello: { url: 'https://api.example.com/fx7h2k/prod/hello', web: false } },
    triggers: { nightly: { url: 'https://api.example.com/fx7h2k/prod/nightly' } },
    webhooks: {
      github: { secret: `whsec_${randomBytes(32).toString('base64')}`, action: 'hello' },
    },
    callers: [
      {
        id: 'reporting',
        tokenSha256: hash('sha256', randomBytes(32), 'hex'),
        scopes: ['jobs:read'],
      },
    ],
  };
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'preflight-'));
  for (const name of ['AWS_REGION', 'AWS_DEFAULT_REGION', 'IS_OFFLINE', 'SECRET_ID']) {
    delete process.env[name];
  }
  Object.assign(process.env, {
    AWS_REGION: 'eu-west-1',
    SCAN_BASE_URL: 'https://wsc.apigw.example.com',
    OPENAPI_BASE_URL: 'https://openapi.apigw.example.com',
  });
});
afterAll(async () => {
  process.env = { ...SAVED };
  await rm(dir, { recursive: true, force: true });
});

describe('npm run preflight, offline', { timeout: 60_000 }, () => {
  it('names an ARN parameter of another region than the stack, with the fix, and exits 1', async () => {
    const { code, lines } = await preflight([
      '--stage',
      'prod',
      '--region',
      'us-east-1',
      `--param=alarmTopicArn=${TOPIC}`,
      `--param=redrivePrincipalArn=${ROLE}`,
      // A parameter the package's own settings check does not know: every ARN is checked.
      '--param=capacityProviderArn=arn:aws:lambda:eu-west-1:123456789012:capacity-provider:pool',
    ]);
    expect(code).toBe(1);
    const failed = lines.filter((line) => line.startsWith('  FAIL'));
    expect(failed).toHaveLength(2);
    for (const name of ['alarmTopicArn', 'capacityProviderArn']) {
      expect(failed.join('\n')).toContain(
        `The ${name} parameter names a resource of eu-west-1, but the stack deploys to us-east-1`,
      );
    }
    expect(failed[0]).toContain('set AWS_REGION, or pass --region');
  });

  it('names the missing on-call principal of prod, with the fix, and exits 1', async () => {
    const { code, lines } = await preflight(['--stage=prod', `--param=alarmTopicArn=${TOPIC}`]);
    expect(code).toBe(1);
    expect(lines.filter((line) => line.startsWith('  FAIL'))).toEqual([
      expect.stringContaining(
        'The redrivePrincipalArn parameter is required for the prod stage: only the webhook receiver and it may send to the invocation queue',
      ),
    ]);
    expect(lines.join('\n')).toContain(
      'Pass --param="redrivePrincipalArn=arn:aws:iam::<account>:role/<on-call role>"',
    );
  });

  it('names each demo credential and the missing capability of a prod secret directory, and exits 1', async () => {
    const secrets = path.join(dir, 'demo');
    await splitSecret({
      text: await readFile(DEMO_SECRET_FILE, 'utf8'),
      origin: 'demo-secret.json',
      outDir: secrets,
      service: 'platform-gateway',
      stage: 'prod',
    });
    await unlink(path.join(secrets, 'webhooks.json'));
    const { code, out, lines } = await preflight([
      '--stage',
      'prod',
      `--param=alarmTopicArn=${TOPIC}`,
      `--param=redrivePrincipalArn=${ROLE}`,
      '--secrets',
      secrets,
    ]);
    expect(code).toBe(1);
    expect(out).toContain(
      `${path.join(secrets, 'webhooks.json')} is missing, but every capability's secret must exist`,
    );
    expect(out).toContain("callers.0 (demo) holds a demo caller's token");
    expect(out).toContain("iam.accessKey is the emulator's demo value");
    expect(out).toContain('actions.hello.url is a plain http:// URL on this machine');
    // Each problem is one line, and no line holds a value of the secret.
    const demo = JSON.parse(await readFile(DEMO_SECRET_FILE, 'utf8'));
    for (const value of [demo.iam.secretKey, demo.callers[0].token, demo.openapi.clientSecret]) {
      expect(out).not.toContain(value);
    }
    expect(lines.filter((line) => line.startsWith('  FAIL')).length).toBeGreaterThanOrEqual(10);
  });

  it('finds nothing in a stage and a directory a deploy can use, and exits 0', async () => {
    const input = path.join(dir, 'secret.json');
    await writeFile(input, JSON.stringify(productionSecret()));
    const secrets = path.join(dir, 'prod');
    await splitSecret({
      text: await readFile(input, 'utf8'),
      origin: input,
      outDir: secrets,
      service: 'platform-gateway',
      stage: 'prod',
    });
    const { code, out } = await preflight([
      '--stage',
      'prod',
      `--param=alarmTopicArn=${TOPIC}`,
      `--param=redrivePrincipalArn=${ROLE}`,
      `--secrets=${secrets}`,
    ]);
    expect(out).not.toContain('FAIL');
    expect(code).toBe(0);
    expect(out).toContain('ok    secret documents in');
    expect(out).toContain('online checks not run (--offline)');
  });

  it('names a missing region as one problem, with the region the ARN parameters name', async () => {
    const saved = { ...process.env };
    delete process.env.AWS_REGION;
    delete process.env.AWS_DEFAULT_REGION;
    try {
      const { code, lines } = await preflight([
        '--stage=prod',
        `--param=alarmTopicArn=${TOPIC}`,
        `--param=redrivePrincipalArn=${ROLE}`,
      ]);
      expect(code).toBe(1);
      expect(lines.filter((line) => line.startsWith('  FAIL'))).toEqual([
        "  FAIL  No region is set: the stack would go to us-east-1, serverless.yml's default, whatever region the AWS CLI's profile names, and the ARN parameters name eu-west-1. Set AWS_REGION and AWS_DEFAULT_REGION to the stack's region (docs/deploy.md, step 1), or pass --region eu-west-1.",
      ]);
    } finally {
      process.env = saved;
    }
  });

  it('refuses base URLs on this machine for prod unless the deploy goes to a stand-in AWS here', async () => {
    const saved = { ...process.env };
    Object.assign(process.env, {
      SCAN_BASE_URL: 'http://127.0.0.1:4010',
      OPENAPI_BASE_URL: 'http://localhost:4010',
    });
    try {
      const flags = [
        '--stage=prod',
        `--param=alarmTopicArn=${TOPIC}`,
        `--param=redrivePrincipalArn=${ROLE}`,
      ];
      const leftover = await preflight(flags);
      expect(leftover.code).toBe(1);
      expect(leftover.lines.filter((line) => line.startsWith('  FAIL'))).toEqual([
        expect.stringContaining(
          'FAIL  SCAN_BASE_URL must be an https URL on a public host for the prod stage, not http://127.0.0.1:4010',
        ),
        expect.stringContaining(
          'FAIL  OPENAPI_BASE_URL must be an https URL on a public host for the prod stage, not http://localhost:4010',
        ),
      ]);
      expect(leftover.out).not.toContain('No problem found');
      process.env.AWS_ENDPOINT_URL = 'http://127.0.0.1:5000';
      const rehearsal = await preflight(flags);
      expect(rehearsal.out).not.toContain('FAIL');
      expect(rehearsal.out).toContain(
        'base URLs on this machine, for a deploy to the stand-in AWS at http://127.0.0.1:5000',
      );
      expect(rehearsal.code).toBe(0);
    } finally {
      process.env = saved;
    }
  });

  it('asks no alarm topic of a stage declared disposable, as the package does', async () => {
    const { code, out } = await preflight(['--stage=qa', '--param=disposable=true']);
    expect(out).not.toContain('FAIL');
    expect(code).toBe(0);
  });

  it('names the demo credentials of a dev secret directory too', async () => {
    const secrets = path.join(dir, 'dev-demo');
    await splitSecret({
      text: await readFile(DEMO_SECRET_FILE, 'utf8'),
      origin: 'demo-secret.json',
      outDir: secrets,
      service: 'platform-gateway',
      stage: 'dev',
    });
    const { code, out } = await preflight(['--stage', 'dev', '--secrets', secrets]);
    expect(code).toBe(1);
    expect(out).toContain("callers.0 (demo) holds a demo caller's token");
    expect(out).toContain("webhooks.demo.secret is the demo webhook's secret");
  });

  it('refuses a usage it cannot read, with exit 2', async () => {
    expect((await preflight(['--region', 'eu-west-1'])).code).toBe(2);
    expect((await preflight(['--stage', 'prod', '--param=novalue'])).code).toBe(2);
  });
});

describe("npm run preflight's command line", () => {
  /** The flags the preflight resolves the stage with (its resolver stops there). */
  async function flagsOf(args: string[]): Promise<DeployFlags> {
    let seen: DeployFlags | undefined;
    await main(
      args,
      () => {},
      () => {},
      async (flags) => {
        seen = flags;
        throw new Error('resolved no further');
      },
    );
    return seen!;
  }

  it('takes --flag value and --flag=value alike, a value keeping its =', async () => {
    expect(
      await flagsOf([
        '--stage',
        'prod',
        '--region=eu-west-1',
        '--param',
        `alarmTopicArn=${TOPIC}`,
        '--param=corsAllowedOrigins=https://app.example.com/?a=b',
        '--offline',
      ]),
    ).toEqual({
      stage: 'prod',
      region: 'eu-west-1',
      params: [
        ['alarmTopicArn', TOPIC],
        ['corsAllowedOrigins', 'https://app.example.com/?a=b'],
      ],
    });
  });

  it('refuses an unknown stage parameter with the known ones, and an unknown flag, with the usage line (exit 2)', async () => {
    const unknownParam = await preflight(['--stage', 'prod', '--param', `alarmTopic=${TOPIC}`]);
    expect(unknownParam.code).toBe(2);
    expect(unknownParam.lines[0]).toMatch(
      /^--param alarmTopic: no such stage parameter; serverless.yml's are .*alarmTopicArn, /,
    );
    expect(unknownParam.lines[1]).toMatch(/^usage: npm run preflight -- --stage <stage>/);
    const unknownFlag = await preflight(['--stage', 'prod', '--secret', dir]);
    expect(unknownFlag.code).toBe(2);
    expect(unknownFlag.lines).toEqual([
      expect.stringContaining("Unknown option '--secret'"),
      expect.stringMatching(/^usage: npm run preflight/),
    ]);
  });
});
