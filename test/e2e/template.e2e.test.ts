/**
 * The deployable package: `serverless package` with no AWS credentials, for a dev stage with
 * the defaults and a prod stage with every optional setting, and the CloudFormation templates
 * it generates. Each function gets the permissions it needs and no more; the queue, its
 * dead-letter queue, the schedule, the routes, the alarms and the stage settings are checked.
 * The dev stage's package is the README's `npx serverless package`, exactly as printed (no
 * variables, no credentials), run while `npm start` runs: its build is its own, so every route
 * keeps answering; a build deleted under it anyway is built again. Then the prod stage's
 * packages, one built and one refused, each into a folder of its own. (One package at a time: a
 * package empties the project's .serverless/ when it starts, whatever its --package.)
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { scopesGranting } from '../../lib/core/scopes.ts';
import { routes } from '../../lib/http/routes/index.ts';
import { DEMO_SECRETS_FILE } from '../../scripts/local/paths.ts';
import { findFreePort, isPortFree } from '../../scripts/local/ports.ts';
import { bareEnvironment } from '../helpers/bare-environment.ts';
import { problemsOf, widgetsOf } from '../helpers/dashboard-metrics.ts';
import {
  capitalized,
  DEV_READS,
  FUNCTION_ACTIONS,
  LOGS,
  PROD_READS,
  SECRET,
  TABLE,
  XRAY,
} from '../helpers/function-expectations.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

interface Resource {
  Type: string;
  Properties: Record<string, unknown>;
}
interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
}
type Policy = { PolicyName: string; PolicyDocument: { Statement: Statement[] } };

/** Example settings, as CI packages with them. */
const URLS = {
  SCAN_BASE_URL: 'https://wsc.apigw.example.com',
  OPENAPI_BASE_URL: 'https://openapi.apigw.example.com',
};
const PROD_SETTINGS = {
  ...URLS,
  // prod keeps one secret per capability; the signing keys' is named by its full ARN.
  SIGNING_SECRET_ID: 'arn:aws:secretsmanager:us-east-1:123456789012:secret:gw/prod/signing',
  // prod's callers carry JWTs of this issuer, checked by API Gateway's JWT authorizer.
  JWT_ISSUER_URL: 'https://issuer.example.com/pool-1',
  JWT_AUDIENCE: 'platform-gateway,reporting-dashboard',
  SECRET_KMS_KEY_ARN: 'arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab',
  EVENT_BUS_NAME: 'scan-events',
};
const ALARM_TOPIC = 'arn:aws:sns:us-east-1:123456789012:on-call';
const CORS_ORIGINS = 'https://app.example.com,https://admin.example.com';
const REDRIVE = 'arn:aws:iam::123456789012:role/on-call';
const EXTENSION_LAYER =
  'arn:aws:lambda:us-east-1:177933569100:layer:AWS-Parameters-and-Secrets-Lambda-Extension-Arm64:12';

interface Packaged {
  readonly dir: string;
  readonly resources: Record<string, Resource>;
}

/**
 * `serverless package` of a stage into a fresh folder, with only these settings; a refused or
 * failed package rejects with the command's error (its exit code, stdout and stderr) and leaves
 * no folder.
 */
async function packageStage(
  stage: string,
  settings: Record<string, string>,
  params: string[] = [],
): Promise<Packaged> {
  const dir = await mkdtemp(path.join(tmpdir(), `sls-package-${stage}-`));
  const env: NodeJS.ProcessEnv = {
    ...bareEnvironment(),
    SLS_ESBUILD_WORK_FOLDER: path.join('.esbuild', path.basename(dir)),
    ...settings,
  };
  try {
    await run(
      path.join(ROOT, 'node_modules/.bin/serverless'),
      ['package', '--stage', stage, '--package', dir, ...params.map((p) => `--param=${p}`)],
      { cwd: ROOT, env },
    );
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  } finally {
    await rm(path.join(ROOT, env.SLS_ESBUILD_WORK_FOLDER!), { recursive: true, force: true });
  }
  return packaged(dir);
}

/** A package's folder and the resources of the template it holds. */
async function packaged(dir: string): Promise<Packaged> {
  const template = JSON.parse(
    await readFile(path.join(dir, 'cloudformation-template-update-stack.json'), 'utf8'),
  ) as { Resources: Record<string, Resource> };
  return { dir, resources: template.Resources };
}

/**
 * `npm start`, run by npm as a terminal runs it: in a process group of its own (npm, and the
 * node it runs), once for this file, on free ports.
 */
interface NpmStart {
  readonly base: string;
  readonly port: number;
  /** npm's process id, and its process group's. */
  readonly pid: number;
  /** Everything it has printed so far. */
  printed(): string;
  /** Waits until it prints `text` (after the first `from` characters); fails if it exits. */
  waitFor(text: string, from?: number): Promise<void>;
  /** How npm ended: its exit code, or the signal that ended it. */
  readonly ended: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stop(): Promise<void>;
}

let npmStart: Promise<NpmStart> | undefined;

function startedOnce(): Promise<NpmStart> {
  npmStart ??= (async () => {
    const output: string[] = [];
    const printed = () => output.join('');
    const port = await findFreePort();
    const start = spawn('npm', ['start'], {
      cwd: ROOT,
      env: {
        ...bareEnvironment(),
        PORT: String(port),
        EMULATOR_PORT: String(await findFreePort()),
      },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      start.once('exit', (code, signal) => resolve({ code, signal })),
    );
    const running = () => start.exitCode === null && start.signalCode === null;
    start.stdout?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    start.stderr?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    const waitFor = async (text: string, from = 0) => {
      await vi.waitFor(
        () => {
          if (!running()) throw new Error(`npm start exited:\n${printed()}`);
          expect(printed().indexOf(text, from), printed()).toBeGreaterThanOrEqual(0);
        },
        { timeout: 180_000, interval: 250 },
      );
    };
    const stop = async () => {
      if (!running()) return;
      start.kill('SIGTERM');
      await ended;
    };
    return {
      base: `http://127.0.0.1:${port}`,
      port,
      pid: start.pid!,
      printed,
      waitFor,
      ended,
      stop,
    };
  })();
  return npmStart;
}

afterAll(async () => {
  await (await npmStart?.catch(() => undefined))?.stop();
}, 30_000);

let readmePackaged: Promise<Packaged & { readonly said: string }> | undefined;

/**
 * The README's `npx serverless package`, as printed (no variables, no credentials), once npm
 * start answers and while it runs: the dev stage's package, into `.serverless/`.
 */
function readmePackage(): Promise<Packaged & { readonly said: string }> {
  readmePackaged ??= (async () => {
    const started = await startedOnce();
    await started.waitFor('Functions ready at');
    const { stdout, stderr } = await run('npx', ['serverless', 'package'], {
      cwd: ROOT,
      env: {
        ...bareEnvironment(),
      },
    });
    // A copy: the next package, whatever its --package, empties .serverless/ when it starts.
    const dir = await mkdtemp(path.join(tmpdir(), 'sls-package-readme-'));
    await cp(path.join(ROOT, '.serverless'), dir, { recursive: true });
    return { ...(await packaged(dir)), said: `${stdout}${stderr}` };
  })();
  return readmePackaged;
}

describe('serverless package and its CloudFormation template', () => {
  let out: string;
  let resources: Record<string, Resource>;
  let prod: Packaged;
  const functions = (of = resources) =>
    Object.entries(of).filter(([, r]) => r.Type === 'AWS::Lambda::Function');
  const functionName = (logicalId: string) => logicalId.replace(/LambdaFunction$/, '');

  beforeAll(async () => {
    // One package at a time: each empties the project's .serverless/ when it starts.
    const dev = await readmePackage();
    out = dev.dir;
    resources = dev.resources;
    prod = await packageStage('prod', PROD_SETTINGS, [
      `alarmTopicArn=${ALARM_TOPIC}`,
      `redrivePrincipalArn=${REDRIVE}`,
      `secretsExtensionLayerArn=${EXTENSION_LAYER}`,
      `corsAllowedOrigins=${CORS_ORIGINS}`,
    ]);
  }, 300_000);

  it("passes the stage's secrets reader to the functions (empty: the default)", () => {
    const variables = (
      resources.ListJobsLambdaFunction!.Properties.Environment as {
        Variables: Record<string, unknown>;
      }
    ).Variables;
    expect(variables).toHaveProperty('SECRETS_READER', '');
  });

  it('configures CORS only where the stage names origins', () => {
    const api = (of: Record<string, Resource>) =>
      Object.values(of).find((r) => r.Type === 'AWS::ApiGatewayV2::Api')!.Properties;
    expect(api(resources).CorsConfiguration).toBeUndefined();
    const cors = api(prod.resources).CorsConfiguration as Record<string, unknown>;
    expect(cors).toMatchObject({
      AllowOrigins: CORS_ORIGINS.split(','),
      AllowHeaders: expect.arrayContaining(['Authorization', 'Content-Type']),
      MaxAge: 600,
    });
    // Bearer tokens, no cookies: credentials are never allowed.
    expect(cors.AllowCredentials).toBeUndefined();
  });

  afterAll(async () => {
    for (const dir of [out, prod?.dir]) if (dir) await rm(dir, { recursive: true, force: true });
  });

  /**
   * One refused package for the two refusals below (the settings check names every problem it
   * finds at once): prod with no alarm topic nor redrive principal, a plain http:// scan base
   * URL and no catalogue base URL.
   */
  let refused: Promise<string> | undefined;
  const refusal = () => {
    refused ??= packageStage('prod', { SCAN_BASE_URL: 'http://wsc.apigw.example.com' }).then(
      async (packagedAnyway) => {
        await rm(packagedAnyway.dir, { recursive: true, force: true });
        return 'packaged';
      },
      (error: { code?: number; stdout?: string; stderr?: string }) => {
        expect(error.code).not.toBe(0);
        return `${error.stdout ?? ''}${error.stderr ?? ''}`;
      },
    );
    return refused;
  };

  it('refuses to package prod without its alarm topic and redrive principal, naming them', async () => {
    const output = await refusal();
    expect(output).not.toBe('packaged');
    // A package may be built without the base URLs (for inspection, with a warning)...
    expect(output).not.toContain('OPENAPI_BASE_URL is required');
    // prod's alarms must notify someone: no topic, no package.
    expect(output).toContain('alarmTopicArn parameter is required for the prod stage');
    expect(output).toContain('redrivePrincipalArn parameter is required for the prod stage');
  });

  it('refuses to package a deployed stage with a plain http:// base URL, naming it', async () => {
    const output = await refusal();
    expect(output).not.toBe('packaged');
    expect(output).toContain('SCAN_BASE_URL must be an https URL');
  });

  it('refuses to package prod with base URLs on this machine when AWS is not a stand-in here', async () => {
    const local = 'http://127.0.0.1:4010';
    const output = await packageStage(
      'prod',
      { SCAN_BASE_URL: local, OPENAPI_BASE_URL: 'http://localhost:4010' },
      [`alarmTopicArn=${ALARM_TOPIC}`, `redrivePrincipalArn=${REDRIVE}`],
    ).then(
      async (packagedAnyway) => {
        await rm(packagedAnyway.dir, { recursive: true, force: true });
        return 'packaged';
      },
      (error: { stdout?: string; stderr?: string }) => `${error.stdout ?? ''}${error.stderr ?? ''}`,
    );
    expect(output).not.toBe('packaged');
    expect(output).toContain(
      `SCAN_BASE_URL must be an https URL on a public host for the prod stage, not ${local}`,
    );
    expect(output).toContain('OPENAPI_BASE_URL must be an https URL on a public host');
  });

  it('builds one artifact per function', async () => {
    const zips = (await readdir(out)).filter((f) => f.endsWith('.zip'));
    expect(zips.length).toBe(functions().length);
    for (const [logicalId, resource] of functions()) {
      const key = JSON.stringify((resource.Properties.Code as { S3Key: unknown }).S3Key);
      expect(key, logicalId).toContain(
        `${functionName(logicalId).replace(/^./, (c) => c.toLowerCase())}.zip`,
      );
    }
  });

  it('runs every function on nodejs24.x', () => {
    for (const [, resource] of functions()) expect(resource.Properties.Runtime).toBe('nodejs24.x');
  });

  it('points every function at the `handler` of a module under functions/', () => {
    // test/integration/handlers.test.ts holds each of those to the shape nodejs24.x runs.
    for (const [logicalId, resource] of functions()) {
      const handler = String(resource.Properties.Handler);
      expect(handler, logicalId).toMatch(/^functions\/[\w/-]+\.handler$/);
      const source = path.join(ROOT, `${handler.replace(/\.handler$/, '')}.ts`);
      expect(existsSync(source), `${logicalId}: ${source}`).toBe(true);
    }
  });

  const roleOf = (of: Record<string, Resource>, logicalId: string) =>
    (of[logicalId]!.Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
  const statementsOf = (of: Record<string, Resource>, roleId: string) =>
    ((of[roleId]?.Properties.Policies ?? []) as Policy[]).flatMap(
      (policy) => policy.PolicyDocument.Statement,
    );

  it('gives each function a role of its own and never the framework default role', () => {
    expect(resources.IamRoleLambdaExecution).toBeUndefined();
    const roles = functions().map(([logicalId]) => roleOf(resources, logicalId));
    expect(new Set(roles).size).toBe(roles.length);
    for (const [logicalId] of functions()) {
      expect(roleOf(resources, logicalId)).toBe(`${functionName(logicalId)}Role`);
    }
  });

  it('packages exactly the functions of the function table (sls/functions.ts)', () => {
    for (const of of [resources, prod.resources]) {
      const packaged = functions(of).map(([logicalId]) => functionName(logicalId));
      expect(packaged.sort()).toEqual(TABLE.map((fn) => capitalized(fn.name)).sort());
    }
  });

  it.each(Object.keys(PROD_READS))('lets %s do exactly what it needs', (fn) => {
    const logicalId = `${fn.charAt(0).toUpperCase()}${fn.slice(1)}LambdaFunction`;
    const statements = statementsOf(resources, roleOf(resources, logicalId));
    const actions = statements.flatMap((s) => (Array.isArray(s.Action) ? s.Action : [s.Action]));
    expect([...new Set(actions)].sort()).toEqual(
      [...LOGS, ...XRAY, ...FUNCTION_ACTIONS[fn]!].sort(),
    );
    for (const statement of statements) {
      expect(statement.Effect).toBe('Allow');
      expect(JSON.stringify(statement.Action)).not.toContain('*');
      // Only X-Ray, which has no resource ARNs, gets '*'.
      if (JSON.stringify(statement.Resource) === '"*"') {
        expect(statement.Action).toEqual(XRAY);
      }
    }
  });

  it('lets each function write its own log group only, in every stage', () => {
    for (const [of, stage] of [
      [resources, 'dev'],
      [prod.resources, 'prod'],
    ] as const) {
      for (const [logicalId] of functions(of)) {
        const fn = functionName(logicalId).replace(/^./, (c) => c.toLowerCase());
        const logs = statementsOf(of, roleOf(of, logicalId)).filter((s) =>
          JSON.stringify(s.Action).includes('logs:'),
        );
        expect(
          logs.map((s) => s.Resource),
          fn,
        ).toEqual([
          {
            'Fn::Sub': `arn:\${AWS::Partition}:logs:\${AWS::Region}:\${AWS::AccountId}:log-group:/aws/lambda/platform-gateway-${stage}-${fn}:*`,
          },
        ]);
        // The function's log group is that one.
        const group = of[`${functionName(logicalId)}LogGroup`]?.Properties.LogGroupName;
        expect(group).toBe(`/aws/lambda/platform-gateway-${stage}-${fn}`);
      }
    }
  });

  /** The secrets a function's role may read, by the last part of their names. */
  const secretsReadBy = (of: Record<string, Resource>, fn: string) => {
    const logicalId = `${fn.charAt(0).toUpperCase()}${fn.slice(1)}LambdaFunction`;
    return statementsOf(of, roleOf(of, logicalId))
      .filter((s) => s.Action === SECRET)
      .flatMap((s) => s.Resource as unknown[])
      .map((resource) => JSON.stringify(resource).match(/secret:[^"]*?\/([a-z]+)-\?{6}/)?.[1])
      .sort();
  };

  it('splits the secret in every stage by default: dev, with caller tokens, reads the callers besides', () => {
    for (const [fn, expected] of Object.entries(DEV_READS)) {
      // Without a JWT issuer, every function behind a caller token reads the callers too.
      expect(secretsReadBy(resources, fn), fn).toEqual(expected);
    }
    // The public receiver reads its webhooks, never the signing keys or the callers' tokens.
    expect(secretsReadBy(resources, 'receiveWebhook')).toEqual(['webhooks']);
  });

  it('with one secret per capability (prod), lets each function read only those of what it uses', () => {
    for (const [fn, expected] of Object.entries(PROD_READS)) {
      expect(secretsReadBy(prod.resources, fn), fn).toEqual(expected);
    }
    const environment = (fn: string) =>
      (
        prod.resources[`${fn}LambdaFunction`]!.Properties.Environment as {
          Variables: Record<string, string>;
        }
      ).Variables;
    expect(environment('ListJobs')).toMatchObject({
      SECRET_ID: '',
      SIGNING_SECRET_ID: PROD_SETTINGS.SIGNING_SECRET_ID,
      CATALOGUE_SECRET_ID: 'platform-gateway/prod/catalogue',
      WEBHOOKS_SECRET_ID: 'platform-gateway/prod/webhooks',
    });
  });

  it('lets only the receiver (and the redrive principal) send to the invocation queue, only the consumer to its dead-letter queue', () => {
    const policy = (of: Record<string, Resource>, id: string) =>
      of[id]?.Properties as {
        Queues: unknown[];
        PolicyDocument: { Statement: Record<string, unknown>[] };
      };
    const queue = policy(resources, 'InvocationQueuePolicy');
    expect(queue.Queues).toEqual([{ Ref: 'InvocationQueue' }]);
    expect(queue.PolicyDocument.Statement[0]).toEqual({
      Sid: 'OnlyTheReceiverSends',
      Effect: 'Deny',
      Principal: '*',
      Action: 'sqs:SendMessage',
      Resource: { 'Fn::GetAtt': ['InvocationQueue', 'Arn'] },
      Condition: {
        ArnNotEquals: { 'aws:PrincipalArn': [{ 'Fn::GetAtt': ['ReceiveWebhookRole', 'Arn'] }] },
      },
    });
    expect(
      policy(prod.resources, 'InvocationQueuePolicy').PolicyDocument.Statement[0]?.Condition,
    ).toEqual({
      ArnNotEquals: {
        'aws:PrincipalArn': [{ 'Fn::GetAtt': ['ReceiveWebhookRole', 'Arn'] }, REDRIVE],
      },
    });
    const dlq = policy(resources, 'InvocationDeadLetterQueuePolicy');
    expect(dlq.Queues).toEqual([{ Ref: 'InvocationDeadLetterQueue' }]);
    expect(dlq.PolicyDocument.Statement[0]).toMatchObject({
      Effect: 'Deny',
      Action: 'sqs:SendMessage',
      Condition: {
        ArnNotEquals: {
          'aws:PrincipalArn': [{ 'Fn::GetAtt': ['ConsumeInvocationsRole', 'Arn'] }],
        },
      },
    });
    // The roles that may send still have it in their own policies.
    expect(JSON.stringify(statementsOf(resources, 'ReceiveWebhookRole'))).toContain(
      '{"Effect":"Allow","Action":"sqs:SendMessage","Resource":{"Fn::GetAtt":["InvocationQueue","Arn"]}}',
    );
  });

  it('adds kms:Decrypt on the key and PutEvents on the bus only when they are set', () => {
    const policies = (of: Record<string, Resource>) =>
      Object.entries(of).filter(([, r]) => r.Type === 'AWS::IAM::Policy');
    expect(policies(resources)).toEqual([]);
    const found = Object.fromEntries(policies(prod.resources));
    const decrypt = found.DecryptPlatformSecretPolicy?.Properties as {
      Roles: unknown[];
      PolicyDocument: { Statement: (Statement & { Condition: unknown })[] };
    };
    expect(decrypt.PolicyDocument.Statement).toEqual([
      expect.objectContaining({
        Action: 'kms:Decrypt',
        Resource: PROD_SETTINGS.SECRET_KMS_KEY_ARN,
        Condition: {
          StringEquals: {
            // biome-ignore lint/suspicious/noTemplateCurlyInString: CloudFormation Fn::Sub syntax
            'kms:ViaService': { 'Fn::Sub': 'secretsmanager.${AWS::Region}.amazonaws.com' },
          },
        },
      }),
    ]);
    // Every role that reads a secret, and no other (prod: JWT callers, so openapi reads none).
    expect(decrypt.Roles).toHaveLength(15);
    expect(decrypt.Roles).not.toContainEqual({ Ref: 'HealthRole' });
    const publish = found.PublishScanJobChangesPolicy?.Properties as {
      Roles: unknown[];
      PolicyDocument: { Statement: Statement[] };
    };
    expect(publish.Roles).toEqual([{ Ref: 'WatchScanJobsRole' }]);
    expect(publish.PolicyDocument.Statement[0]?.Action).toBe('events:PutEvents');
    expect(JSON.stringify(publish.PolicyDocument.Statement[0]?.Resource)).toContain(
      'event-bus/scan-events',
    );
    // A partial ARN gets Secrets Manager's suffix pattern.
    expect(JSON.stringify(prod.resources.ListJobsRole?.Properties.Policies)).toContain(
      `"${PROD_SETTINGS.SIGNING_SECRET_ID}-??????"`,
    );
  });

  it("scopes each secret to the stage's own name for it", () => {
    const text = JSON.stringify(resources.ListJobsRole?.Properties.Policies);
    expect(text).toContain('secret:platform-gateway/dev/signing-??????');
    expect(text).toContain('secret:platform-gateway/dev/callers-??????');
    expect(text).not.toContain('secret:platform-gateway/dev/platform-??????');
  });

  it('scopes queue and table permissions to their own resources', () => {
    expect(JSON.stringify(resources.ReceiveWebhookRole?.Properties.Policies)).toContain(
      '{"Fn::GetAtt":["InvocationQueue","Arn"]}',
    );
    const consumerPolicies = JSON.stringify(resources.ConsumeInvocationsRole?.Properties.Policies);
    expect(consumerPolicies).toContain('{"Fn::GetAtt":["InvocationQueue","Arn"]}');
    expect(consumerPolicies).toContain('{"Fn::GetAtt":["DeliveryLedgerTable","Arn"]}');
    const watcher = JSON.stringify(resources.WatchScanJobsRole?.Properties.Policies);
    expect(watcher).toContain('{"Fn::GetAtt":["WatcherStateTable","Arn"]}');
  });

  it('keeps webhook deliveries in a ledger table with a TTL, named to the consumer only', () => {
    const table = resources.DeliveryLedgerTable?.Properties as Record<string, unknown>;
    expect(table.KeySchema).toEqual([{ AttributeName: 'deliveryKey', KeyType: 'HASH' }]);
    expect(table.TimeToLiveSpecification).toEqual({ AttributeName: 'expiresAt', Enabled: true });
    const envOf = (fn: string) => {
      const properties = resources[`${fn}LambdaFunction`]?.Properties as
        | { Environment: { Variables: Record<string, unknown> } }
        | undefined;
      return properties?.Environment.Variables ?? {};
    };
    expect(envOf('ConsumeInvocations').DELIVERY_LEDGER_TABLE).toEqual({
      Ref: 'DeliveryLedgerTable',
    });
    // Deployed, the receiver only enqueues: the consumer claims.
    expect(envOf('ReceiveWebhook').DELIVERY_LEDGER_TABLE).toBe('');
  });

  it('keeps usage in a table of its own: TTL, kept and recovered in prod, named to every function', () => {
    const table = (of: Record<string, Resource>) =>
      of.UsageTable as Resource & { DeletionPolicy: string; UpdateReplacePolicy: string };
    expect(table(resources).Properties).toMatchObject({
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: [{ AttributeName: 'usageKey', KeyType: 'HASH' }],
      TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: false },
      SSESpecification: { SSEEnabled: true },
    });
    expect(table(resources).DeletionPolicy).toBe('Delete');
    expect(table(prod.resources).DeletionPolicy).toBe('Retain');
    expect(table(prod.resources).UpdateReplacePolicy).toBe('Retain');
    expect(propertiesOf(prod.resources, 'UsageTable').PointInTimeRecoverySpecification).toEqual({
      PointInTimeRecoveryEnabled: true,
    });
    for (const [logicalId, resource] of functions()) {
      const env = (resource.Properties.Environment as { Variables: Record<string, unknown> })
        .Variables;
      expect(env.USAGE_TABLE, logicalId).toEqual({ Ref: 'UsageTable' });
      expect(env.USAGE_STORE_FAILURE, logicalId).toBe('');
    }
    expect(JSON.stringify(resources.ListJobsRole?.Properties.Policies)).toContain(
      '{"Fn::GetAtt":["UsageTable","Arn"]}',
    );
  });

  it('caps the concurrency of every function that may run 10 s or more or hand off: cancel-reserved, the webhook receiver, actions, triggers, the report, the catalogue groups that hand off, the queue consumer', () => {
    const reserved = (of: Record<string, Resource>, fn: string) =>
      propertiesOf(of, `${fn}LambdaFunction`).ReservedConcurrentExecutions;
    expect(reserved(resources, 'CancelReservedJobs')).toBe(10);
    expect(reserved(resources, 'ReceiveWebhook')).toBe(50);
    expect(reserved(resources, 'InvokeAction')).toBe(20);
    expect(reserved(resources, 'FireTrigger')).toBe(10);
    expect(reserved(resources, 'GetJobReport')).toBe(10);
    expect(reserved(resources, 'CatalogueLanguage')).toBe(10);
    expect(reserved(resources, 'CatalogueMaps')).toBe(20);
    expect(reserved(resources, 'CatalogueCaptcha')).toBe(10);
    expect(reserved(resources, 'CatalogueUtility')).toBeUndefined();
    expect(reserved(resources, 'ListJobs')).toBeUndefined();
    const consumer = Object.values(resources).find(
      (r) => r.Type === 'AWS::Lambda::EventSourceMapping',
    )!;
    expect(consumer.Properties.ScalingConfig).toEqual({ MaximumConcurrency: 10 });
  });

  it('gives the routes anyone may call budgets of their own, lower than the callers’ routes’', () => {
    for (const [of, callers, webhook] of [
      [resources, 50, 20],
      [prod.resources, 200, 50],
    ] as const) {
      const stage = propertiesOf(of, 'HttpApiStage');
      expect((stage.DefaultRouteSettings as Record<string, number>).ThrottlingRateLimit).toBe(
        callers,
      );
      const settings = stage.RouteSettings as Record<string, { ThrottlingRateLimit: number }>;
      expect(settings['POST /webhooks/{name}']?.ThrottlingRateLimit).toBe(webhook);
      for (const key of [
        'GET /health',
        'GET /docs',
        'GET /docs/{asset}',
        'GET /openapi.json',
        '$default',
      ]) {
        expect(settings[key]?.ThrottlingRateLimit, key).toBe(10);
      }
      expect(settings['GET /jobs']).toBeUndefined();
    }
  });

  it("alarms when the usage table fails and at 80 % of the account plan's monthly quotas", () => {
    const failures = propertiesOf(resources, 'UsageStoreFailuresAlarm');
    expect(failures).toMatchObject({ Threshold: 0, ComparisonOperator: 'GreaterThanThreshold' });
    expect(JSON.stringify(failures.Metrics)).toContain('SUM(UsageStoreFailures)');
    const quota = propertiesOf(resources, 'AccountMonthQuotaAlarm');
    expect(quota).toMatchObject({
      Threshold: 80,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
    expect(JSON.stringify(quota.Metrics)).toContain('MAX(AccountMonthQuotaUsedPercent)');
    expect(propertiesOf(prod.resources, 'AccountMonthQuotaAlarm').AlarmActions).toEqual([
      ALARM_TOPIC,
    ]);
  });

  it('has a high-throughput FIFO invocation queue with a FIFO dead-letter queue', () => {
    const queue = resources.InvocationQueue?.Properties as Record<string, unknown>;
    const dlq = resources.InvocationDeadLetterQueue?.Properties as Record<string, unknown>;
    expect(queue.FifoQueue).toBe(true);
    expect(queue.ContentBasedDeduplication).toBe(false);
    expect(queue.DeduplicationScope).toBe('messageGroup');
    expect(queue.FifoThroughputLimit).toBe('perMessageGroupId');
    // Kept as long as the ledger remembers a delivery by default (4 days).
    expect(queue.MessageRetentionPeriod).toBe(4 * 24 * 3600);
    expect(dlq.FifoQueue).toBe(true);
    expect(queue.RedrivePolicy).toEqual({
      deadLetterTargetArn: { 'Fn::GetAtt': ['InvocationDeadLetterQueue', 'Arn'] },
      maxReceiveCount: 10,
    });
    const consumer = resources.ConsumeInvocationsLambdaFunction?.Properties as { Timeout: number };
    expect(queue.VisibilityTimeout as number).toBeGreaterThanOrEqual(6 * consumer.Timeout);
  });

  it('feeds the consumer from the queue, reporting partial batch failures', () => {
    const mappings = Object.values(resources).filter(
      (r) => r.Type === 'AWS::Lambda::EventSourceMapping',
    );
    expect(mappings).toHaveLength(1);
    const mapping = mappings[0]!.Properties;
    expect(mapping.EventSourceArn).toEqual({ 'Fn::GetAtt': ['InvocationQueue', 'Arn'] });
    expect(mapping.FunctionResponseTypes).toEqual(['ReportBatchItemFailures']);
    expect(JSON.stringify(mapping.FunctionName)).toContain('ConsumeInvocations');
  });

  it('leaves source maps off unless a stage turns them on (they cost every cold start)', () => {
    for (const [logicalId, resource] of [...functions(), ...functions(prod.resources)]) {
      const env = (resource.Properties.Environment as { Variables: Record<string, unknown> })
        .Variables;
      expect(env.NODE_OPTIONS, logicalId).toBe('');
    }
  });

  it('deploys the receiver that queues, not the one that runs deliveries in process', () => {
    expect(resources.ReceiveWebhookLambdaFunction!.Properties.Handler).toBe(
      'functions/webhooks/receive.handler',
    );
  });

  it('hands webhooks to the queue when deployed', () => {
    const env = (
      resources.ReceiveWebhookLambdaFunction!.Properties.Environment as {
        Variables: Record<string, unknown>;
      }
    ).Variables;
    expect(env.INVOCATION_QUEUE_URL).toEqual({ Ref: 'InvocationQueue' });
    expect(env.DELIVERY_BODY_BUCKET).toEqual({ Ref: 'DeliveryBodyBucket' });
    expect(env.SECRETS_SOURCE).toBe('aws');
  });

  it('gives the consumer every part it needs when deployed: queue, dead-letter queue, ledger, bodies', () => {
    const env = (
      resources.ConsumeInvocationsLambdaFunction!.Properties.Environment as {
        Variables: Record<string, unknown>;
      }
    ).Variables;
    expect(env).toMatchObject({
      INVOCATION_QUEUE_URL: { Ref: 'InvocationQueue' },
      INVOCATION_DEAD_LETTER_QUEUE_URL: { Ref: 'InvocationDeadLetterQueue' },
      DELIVERY_LEDGER_TABLE: { Ref: 'DeliveryLedgerTable' },
      DELIVERY_BODY_BUCKET: { Ref: 'DeliveryBodyBucket' },
    });
  });

  it('keeps delivery bodies private, encrypted, reachable over TLS only, and for 15 days; only the receiver puts one, only the consumer gets one', () => {
    const bucket = resources.DeliveryBodyBucket?.Properties as Record<string, unknown>;
    expect(bucket.PublicAccessBlockConfiguration).toEqual({
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    });
    expect(JSON.stringify(bucket.LifecycleConfiguration)).toContain('"ExpirationInDays":15');
    const policy = resources.DeliveryBodyBucketPolicy?.Properties as {
      PolicyDocument: { Statement: Record<string, unknown>[] };
    };
    expect(policy.PolicyDocument.Statement[0]).toMatchObject({
      Effect: 'Deny',
      Condition: { Bool: { 'aws:SecureTransport': false } },
    });
    // biome-ignore lint/suspicious/noTemplateCurlyInString: CloudFormation Fn::Sub syntax
    const objects = { 'Fn::Sub': '${DeliveryBodyBucket.Arn}/*' };
    expect(policy.PolicyDocument.Statement.slice(1)).toEqual([
      {
        Sid: 'OnlyTheReceiverPuts',
        Effect: 'Deny',
        Principal: '*',
        Action: 's3:PutObject',
        Resource: objects,
        Condition: {
          ArnNotEquals: { 'aws:PrincipalArn': [{ 'Fn::GetAtt': ['ReceiveWebhookRole', 'Arn'] }] },
        },
      },
      {
        Sid: 'OnlyTheConsumerGets',
        Effect: 'Deny',
        Principal: '*',
        Action: 's3:GetObject',
        Resource: objects,
        Condition: {
          ArnNotEquals: {
            'aws:PrincipalArn': [{ 'Fn::GetAtt': ['ConsumeInvocationsRole', 'Arn'] }],
          },
        },
      },
    ]);
  });

  it('keeps answers handed off private, encrypted, over TLS only, for a day, each function under its own prefix', () => {
    const bucket = resources.HandOffBucket?.Properties as Record<string, unknown>;
    expect(bucket.PublicAccessBlockConfiguration).toEqual({
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    });
    expect(JSON.stringify(bucket.BucketEncryption)).toContain('"SSEAlgorithm":"AES256"');
    expect(bucket.LifecycleConfiguration).toEqual({
      Rules: [
        {
          Id: 'expire-answers',
          Status: 'Enabled',
          ExpirationInDays: 1,
          AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 },
        },
      ],
    });
    // A page that followed the 303 may read the file name and the platform's own type.
    expect(bucket.CorsConfiguration).toEqual({
      CorsRules: [
        {
          AllowedMethods: ['GET', 'HEAD'],
          AllowedOrigins: ['*'],
          ExposedHeaders: ['Content-Disposition', 'x-amz-meta-content-type'],
          MaxAge: 600,
        },
      ],
    });
    const statements = (
      resources.HandOffBucketPolicy!.Properties as {
        PolicyDocument: { Statement: Record<string, unknown>[] };
      }
    ).PolicyDocument.Statement;
    expect(statements[0]).toMatchObject({
      Effect: 'Deny',
      Condition: { Bool: { 'aws:SecureTransport': false } },
    });
    // The functions whose routes hand off (`handsOff`), in the table's order.
    const handingOff = TABLE.filter((fn) => fn.handsOff).map((fn) => capitalized(fn.name));
    expect(statements[1]).toMatchObject({
      Effect: 'Deny',
      Action: ['s3:PutObject', 's3:GetObject', 's3:AbortMultipartUpload'],
      Condition: {
        ArnNotEquals: {
          'aws:PrincipalArn': handingOff.map((fn) => ({ 'Fn::GetAtt': [`${fn}Role`, 'Arn'] })),
        },
      },
    });
    // Each role that hands off writes and reads under its own function's prefix, and no other
    // role touches the bucket.
    for (const [id, role] of Object.entries(resources).filter(
      ([, r]) => r.Type === 'AWS::IAM::Role',
    )) {
      const policies = JSON.stringify(role.Properties.Policies);
      const fn = id.replace(/Role$/, '');
      if (handingOff.includes(fn)) {
        const prefix = `${fn.charAt(0).toLowerCase()}${fn.slice(1)}`;
        expect(policies, id).toContain(`"\${HandOffBucket.Arn}/${prefix}/*"`);
        expect(policies.match(/HandOffBucket/g), id).toHaveLength(1);
      } else {
        expect(policies, id).not.toContain('HandOffBucket');
      }
    }
    const env = (
      resources.GetJobReportLambdaFunction!.Properties.Environment as {
        Variables: Record<string, unknown>;
      }
    ).Variables;
    expect(env).toMatchObject({
      HAND_OFF_BUCKET: { Ref: 'HandOffBucket' },
      HAND_OFF_MAX_MB: '100',
    });
  });

  it('alarms when the consumer parks an invocation', () => {
    const alarm = resources.InvocationsParkedAlarm?.Properties as Record<string, unknown>;
    expect(alarm).toMatchObject({
      Namespace: 'PlatformGateway',
      MetricName: 'InvocationsParked',
      Dimensions: [{ Name: 'Function', Value: 'consumeInvocations' }],
      Threshold: 0,
      ComparisonOperator: 'GreaterThanThreshold',
    });
  });

  it('schedules the watcher, with its state table', () => {
    const rules = Object.values(resources).filter((r) => r.Type === 'AWS::Events::Rule');
    expect(rules).toHaveLength(1);
    expect(rules[0]!.Properties.ScheduleExpression).toMatch(/^rate\(/);
    expect(JSON.stringify(rules[0]!.Properties.Targets)).toContain('WatchScanJobsLambdaFunction');
    const env = (
      resources.WatchScanJobsLambdaFunction!.Properties.Environment as {
        Variables: Record<string, unknown>;
      }
    ).Variables;
    expect(env.WATCHER_STATE_TABLE).toEqual({ Ref: 'WatcherStateTable' });
  });

  it('declares exactly the routes of the registry (lib/http/routes/), plus the catch-all', () => {
    const declared = Object.values(resources)
      .filter((r) => r.Type === 'AWS::ApiGatewayV2::Route')
      .map((r) => r.Properties.RouteKey as string)
      .sort();
    const expected = [
      ...routes.map((route) => `${route.method === 'ANY' ? 'ANY' : route.method} ${route.path}`),
      '$default',
    ].sort();
    expect(declared).toEqual(expected);
  });

  it('puts every route with a caller behind the JWT authorizer with its scopes when the stage sets an issuer', () => {
    const authorizers = (of: Record<string, Resource>) =>
      Object.entries(of).filter(([, r]) => r.Type === 'AWS::ApiGatewayV2::Authorizer');
    expect(authorizers(resources)).toEqual([]);
    const [[authorizerId, authorizer] = ['', undefined]] = authorizers(prod.resources);
    expect(authorizer?.Properties).toMatchObject({
      AuthorizerType: 'JWT',
      IdentitySource: ['$request.header.Authorization'],
      JwtConfiguration: {
        Issuer: PROD_SETTINGS.JWT_ISSUER_URL,
        Audience: ['platform-gateway', 'reporting-dashboard'],
      },
    });
    const routeResources = (of: Record<string, Resource>) =>
      Object.fromEntries(
        Object.values(of)
          .filter((r) => r.Type === 'AWS::ApiGatewayV2::Route')
          .map((r) => [r.Properties.RouteKey as string, r.Properties]),
      );
    for (const route of Object.values(routeResources(resources))) {
      expect(route.AuthorizationType).toBeUndefined();
    }
    const deployed = routeResources(prod.resources);
    for (const route of routes) {
      const properties = deployed[`${route.method} ${route.path}`]!;
      if (route.access === 'public') {
        expect(properties.AuthorizationType, route.id).toBeUndefined();
        continue;
      }
      expect(properties.AuthorizationType, route.id).toBe('JWT');
      expect(properties.AuthorizerId, route.id).toEqual({ Ref: authorizerId });
      // A fixed scope: it, or one granting it, but never * (the stage does not allow a JWT's *);
      // one built from the path: checked by the function.
      const expected =
        route.access === 'caller' || route.access.scope.endsWith(':{name}')
          ? undefined
          : scopesGranting(route.access.scope).filter((scope) => scope !== '*');
      expect(properties.AuthorizationScopes, route.id).toEqual(expected);
    }
    expect(deployed['GET /jobs']?.AuthorizationScopes).toEqual(['jobs:read']);
    expect(deployed['POST /jobs/cancel-reserved']?.AuthorizationScopes).toEqual([
      'jobs:cancel-reserved',
    ]);
    expect(deployed['GET /maps/geocode']?.AuthorizationScopes).toEqual([
      'catalogue:maps',
      'catalogue:*',
    ]);
    expect(deployed.$default?.AuthorizationType).toBeUndefined();
    // The functions read callers from the claims of that issuer.
    const env = (
      prod.resources.ListJobsLambdaFunction!.Properties.Environment as {
        Variables: Record<string, string>;
      }
    ).Variables;
    expect(env.JWT_ISSUER_URL).toBe(PROD_SETTINGS.JWT_ISSUER_URL);
  });

  const propertiesOf = (of: Record<string, Resource>, id: string) =>
    of[id]?.Properties as Record<string, unknown>;

  it('gives HTTP functions 10 s (cancel-reserved 25 s) and 256 MB, the watcher 60 s and the consumer 90 s', () => {
    const long: Record<string, number> = {
      ConsumeInvocations: 90,
      WatchScanJobs: 60,
      CancelReservedJobs: 25,
    };
    for (const [logicalId, resource] of functions()) {
      expect(resource.Properties.Timeout, logicalId).toBe(long[functionName(logicalId)] ?? 10);
      expect(resource.Properties.MemorySize, logicalId).toBe(256);
      expect(resource.Properties.Architectures, logicalId).toEqual(['arm64']);
    }
  });

  it('lets API Gateway wait longer than any HTTP function, within its 30 s', () => {
    const integrations = Object.values(resources).filter(
      (r) => r.Type === 'AWS::ApiGatewayV2::Integration',
    );
    expect(integrations.length).toBeGreaterThan(0);
    for (const integration of integrations) {
      const timeout = (integration.Properties.TimeoutInMillis as number | undefined) ?? 30_000;
      expect(timeout).toBeGreaterThan(10_000);
      expect(timeout).toBeLessThanOrEqual(30_000);
      expect(integration.Properties.PayloadFormatVersion).toBe('2.0');
    }
  });

  it('reads five messages at a time from the queue', () => {
    const mapping = Object.values(resources).find(
      (r) => r.Type === 'AWS::Lambda::EventSourceMapping',
    );
    expect(mapping?.Properties.BatchSize).toBe(5);
  });

  const PASSES_THROUGH = new Set(
    [
      'getJobReport',
      'invokeAction',
      'fireTrigger',
      'catalogueLanguage',
      'catalogueMaps',
      'catalogueCaptcha',
      'catalogueUtility',
    ].map((name) => `${name}.zip`),
  );

  it('zips each bundle with its source map, its HTTP parser when it calls out, and nothing else', async () => {
    // Health, the catch-all route and the public reference call nothing: no HTTP client.
    const callsNothing = new Set(['health.zip', 'fallback.zip', 'openapi.zip', 'docs.zip']);
    for (const zip of (await readdir(out)).filter((f) => f.endsWith('.zip'))) {
      const { stdout } = await run('unzip', ['-Z1', path.join(out, zip)]);
      const entries = stdout
        .trim()
        .split('\n')
        .filter((entry) => !entry.endsWith('/'));
      const bundles = entries.filter((e) => e.endsWith('.cjs') && !e.endsWith('.hand-off.cjs'));
      expect(bundles, zip).toHaveLength(1);
      const bundle = bundles[0]!.replace(/\.cjs$/, '');
      const expected = [`${bundle}.cjs`, `${bundle}.cjs.map`];
      // undici's HTTP parser, named after the bundle (sls/plugins/esbuild-plugins.ts).
      if (!callsNothing.has(zip)) expected.push(`${bundle}.llhttp.wasm`);
      // The hand-off's upload, loaded on a first answer too large to return, beside the
      // bundles of the functions that pass answers through.
      if (PASSES_THROUGH.has(zip)) expected.push(`${bundle}.hand-off.cjs`);
      expect(entries.sort(), zip).toEqual(expected.sort());
    }
  });

  it('keeps every log group as long as its stage says: 14 days in dev, 90 in prod', () => {
    const retention = (of: Record<string, Resource>) =>
      Object.values(of)
        .filter((r) => r.Type === 'AWS::Logs::LogGroup')
        .map((r) => r.Properties.RetentionInDays);
    expect(new Set(retention(resources))).toEqual(new Set([14]));
    expect(new Set(retention(prod.resources))).toEqual(new Set([90]));
  });

  it('attaches the secrets extension where the stage names its layer, to secret readers only', () => {
    const props = (of: Record<string, Resource>, id: string) =>
      of[id]!.Properties as {
        Layers?: unknown[];
        Environment: { Variables: Record<string, unknown> };
      };
    expect(props(prod.resources, 'ListJobsLambdaFunction').Layers).toEqual([EXTENSION_LAYER]);
    expect(
      props(prod.resources, 'ListJobsLambdaFunction').Environment.Variables.SECRETS_EXTENSION_PORT,
    ).toBe('2773');
    expect(props(prod.resources, 'HealthLambdaFunction').Layers ?? []).toEqual([]);
    expect(props(resources, 'ListJobsLambdaFunction').Layers ?? []).toEqual([]);
    expect(
      props(resources, 'ListJobsLambdaFunction').Environment.Variables.SECRETS_EXTENSION_PORT,
    ).toBe('');
  });

  it('differs by stage: tracing, data retention, throttling', () => {
    const tracing = (of: Record<string, Resource>) =>
      new Set(functions(of).map(([, r]) => JSON.stringify(r.Properties.TracingConfig)));
    expect(tracing(resources)).toEqual(new Set(['{"Mode":"PassThrough"}']));
    expect(tracing(prod.resources)).toEqual(new Set(['{"Mode":"Active"}']));
    const throttle = (of: Record<string, Resource>) =>
      propertiesOf(of, 'HttpApiStage').DefaultRouteSettings as Record<string, unknown>;
    expect(throttle(resources)).toMatchObject({
      ThrottlingRateLimit: 50,
      ThrottlingBurstLimit: 100,
    });
    expect(throttle(prod.resources)).toMatchObject({
      ThrottlingRateLimit: 200,
      ThrottlingBurstLimit: 400,
    });
  });

  it('writes the HTTP API access log to a log group of its own, with the path of each request', () => {
    for (const of of [resources, prod.resources]) {
      const settings = propertiesOf(of, 'HttpApiStage').AccessLogSettings as Record<
        string,
        unknown
      >;
      expect(settings.DestinationArn).toEqual({ 'Fn::GetAtt': ['HttpApiLogGroup', 'Arn'] });
      const format = JSON.parse(String(settings.Format)) as Record<string, string>;
      expect(format).toMatchObject({
        requestId: '$context.requestId',
        routeKey: '$context.routeKey',
        // The route's template says which route; the path says which job.
        path: '$context.path',
        status: '$context.status',
        jwtSub: '$context.authorizer.claims.sub',
      });
    }
  });

  /** The resources that hold data: every table, queue, bucket and log group of the stack. */
  const dataResources = (of: Record<string, Resource>) =>
    Object.entries(of).filter(
      ([id, r]) =>
        [
          'AWS::DynamoDB::Table',
          'AWS::SQS::Queue',
          'AWS::S3::Bucket',
          'AWS::Logs::LogGroup',
        ].includes(r.Type) && id !== 'ServerlessDeploymentBucket',
    ) as [string, Resource & { DeletionPolicy?: string; UpdateReplacePolicy?: string }][];

  it('keeps every table, queue, bucket and log group in prod when the stack goes or one is replaced', () => {
    const kept = dataResources(prod.resources);
    expect(kept.map(([id]) => id)).toEqual(
      expect.arrayContaining([
        'DeliveryLedgerTable',
        'WatcherStateTable',
        'InvocationQueue',
        'InvocationDeadLetterQueue',
        'DeliveryBodyBucket',
        'HandOffBucket',
        'HttpApiLogGroup',
        'ReceiveWebhookLogGroup',
        'CancelReservedJobsLogGroup',
      ]),
    );
    // Every function's log group and the access log's.
    expect(kept.filter(([, r]) => r.Type === 'AWS::Logs::LogGroup')).toHaveLength(
      functions(prod.resources).length + 1,
    );
    for (const [id, resource] of kept) {
      expect([id, resource.DeletionPolicy, resource.UpdateReplacePolicy]).toEqual([
        id,
        'Retain',
        'Retain',
      ]);
    }
    // The artifacts bucket holds nothing the framework cannot upload again.
    expect(
      (prod.resources.ServerlessDeploymentBucket as { DeletionPolicy?: string }).DeletionPolicy,
    ).toBeUndefined();
  });

  it('deletes them with a dev stack, which is disposable', () => {
    const dev = dataResources(resources);
    expect(dev.length).toBe(dataResources(prod.resources).length);
    for (const [id, resource] of dev) {
      expect([id, resource.DeletionPolicy, resource.UpdateReplacePolicy]).toEqual([
        id,
        'Delete',
        'Delete',
      ]);
    }
  });

  it('gives every table point-in-time recovery in prod, none in dev', () => {
    const tables = (of: Record<string, Resource>) =>
      Object.entries(of).filter(([, r]) => r.Type === 'AWS::DynamoDB::Table');
    expect(
      tables(prod.resources)
        .map(([id]) => id)
        .sort(),
    ).toEqual(['DeliveryLedgerTable', 'UsageTable', 'WatcherStateTable']);
    for (const [id, table] of tables(prod.resources)) {
      expect(table.Properties.PointInTimeRecoverySpecification, id).toEqual({
        PointInTimeRecoveryEnabled: true,
      });
    }
    for (const [id, table] of tables(resources)) {
      expect(table.Properties.PointInTimeRecoverySpecification, id).toEqual({
        PointInTimeRecoveryEnabled: false,
      });
    }
  });

  it('tags every function and the API stage with the service and the stage', () => {
    for (const [logicalId, resource] of functions(prod.resources)) {
      expect(resource.Properties.Tags, logicalId).toEqual(
        expect.arrayContaining([
          { Key: 'service', Value: 'platform-gateway' },
          { Key: 'stage', Value: 'prod' },
        ]),
      );
    }
    expect(propertiesOf(prod.resources, 'HttpApiStage').Tags).toEqual({
      service: 'platform-gateway',
      stage: 'prod',
    });
  });

  it('has one dashboard a stage, every metric of it one the stack or the code emits, every route, function and alarm in it', () => {
    for (const [stage, of] of [
      ['dev', resources],
      ['prod', prod.resources],
    ] as const) {
      const dashboards = Object.entries(of).filter(
        ([, r]) => r.Type === 'AWS::CloudWatch::Dashboard',
      );
      expect(dashboards.map(([id]) => id)).toEqual(['StageDashboard']);
      const dashboard = dashboards[0]![1];
      expect(dashboard.Properties.DashboardName).toBe(`platform-gateway-${stage}`);
      const widgets = widgetsOf(dashboard);
      expect(problemsOf(of, widgets), stage).toEqual([]);
      const shown = JSON.stringify(widgets);
      for (const route of routes) {
        expect(shown, `${stage}: ${route.method} ${route.path}`).toContain(
          `"Method","${route.method}","Resource","${route.path}"`,
        );
      }
      for (const [logicalId, r] of Object.entries(of)) {
        if (r.Type === 'AWS::Lambda::Function' || r.Type === 'AWS::DynamoDB::Table') {
          expect(shown, `${stage}: ${logicalId}`).toContain(`\${${logicalId}}`);
        }
        if (r.Type === 'AWS::SQS::Queue') expect(shown).toContain(`\${${logicalId}.QueueName}`);
        // An alarm by the ARN built from its name (sls/plugins/dashboard.ts says why).
        if (r.Type === 'AWS::CloudWatch::Alarm') expect(shown).toContain(`:alarm:\${${logicalId}}`);
      }
    }
  });

  it("counts the stage's alarms in the README's picture and the costs page as the template has them", async () => {
    const readme = await readFile(path.join(ROOT, 'README.md'), 'utf8');
    const costs = await readFile(path.join(ROOT, 'docs/costs.md'), 'utf8');
    const count = Object.values(resources).filter(
      (r) => r.Type === 'AWS::CloudWatch::Alarm',
    ).length;
    expect(costs).toContain(`| ${count} alarms: `);
    expect(readme).toContain(`["${count} alarms and the stage's dashboard`);
  });

  it('has the alarms an on-call engineer needs, sent to the topic given', () => {
    const alarms = (of: Record<string, Resource>) =>
      Object.fromEntries(
        Object.entries(of).filter(([, r]) => r.Type === 'AWS::CloudWatch::Alarm'),
      ) as Record<string, Resource>;
    const dev = alarms(resources);
    const prodAlarms = alarms(prod.resources);
    for (const [logicalId] of functions()) {
      const name = functionName(logicalId);
      expect(dev[`${name}ErrorsAlarm`]?.Properties.MetricName, name).toBe('Errors');
      expect(dev[`${name}ThrottlesAlarm`]?.Properties.MetricName, name).toBe('Throttles');
    }
    expect(dev.DeadLetterQueueNotEmptyAlarm?.Properties).toMatchObject({
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Threshold: 0,
      ComparisonOperator: 'GreaterThanThreshold',
    });
    expect(JSON.stringify(dev.DeadLetterQueueNotEmptyAlarm?.Properties.Dimensions)).toContain(
      'InvocationDeadLetterQueue',
    );
    expect(JSON.stringify(dev.HttpApi5xxRateAlarm?.Properties.Metrics)).toContain('5xx');
    expect(JSON.stringify(dev.WatcherFailingAlarm?.Properties.Dimensions)).toContain(
      'WatchScanJobsLambdaFunction',
    );
    // A secret only an operator can mend (invalid, missing, not readable).
    expect(JSON.stringify(dev.ConfigurationErrorsAlarm?.Properties.Metrics)).toContain(
      '"Namespace":"PlatformGateway","MetricName":"ConfigurationErrors"',
    );
    for (const alarm of Object.values(dev)) expect(alarm.Properties.AlarmActions).toEqual([]);
    for (const alarm of Object.values(prodAlarms)) {
      expect(alarm.Properties.AlarmActions).toEqual([ALARM_TOPIC]);
    }
  });
});

/**
 * A line of the README's sample of npm start's output as a pattern of what it prints here: this
 * run's ports for 3000 and 4010, any Node version, and any path for the secret file (with other
 * ports, npm start gives the functions a copy of the demo secret that names its emulator).
 */
function samplePattern(line: string, port: number): RegExp {
  const escaped = line.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(
    `^${escaped
      .replaceAll(':3000', `:${port}`)
      // The hand-off bucket's stand-in listens on PORT + 1 unless told otherwise.
      .replaceAll(':3001', `:${port + 1}`)
      .replaceAll('port 3000', `port ${port}`)
      .replaceAll(':4010', ':\\d+')
      .replace(/^Node v\S+/, 'Node v\\S+')
      .replace('secrets: /…/emulator/demo-secret\\.json', 'secrets: /\\S+\\.json')}$`,
  );
}

describe("the README's package command while npm start runs", () => {
  let started: NpmStart;
  const demoToken = async () =>
    (JSON.parse(await readFile(DEMO_SECRETS_FILE, 'utf8')) as { callers: { token: string }[] })
      .callers[0]!.token;

  beforeAll(async () => {
    started = await startedOnce();
    await started.waitFor('Functions ready at');
  }, 200_000);

  it("prints what the README's sample shows, and nothing else before the functions are ready", async () => {
    const readme = await readFile(path.join(ROOT, 'README.md'), 'utf8');
    const sample = /`npm start` prints this[\s\S]*?```\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(sample, 'the README shows what npm start prints').toBeDefined();
    const expected = sample!.split('\n');
    // npm begins with a blank line of its own, which the sample leaves out.
    const printed = started.printed().replace(/^\n/, '');
    const shown = printed.slice(0, printed.indexOf('Ctrl-C stops everything.'));
    const lines = `${shown}Ctrl-C stops everything.\n`.split('\n');
    expect(lines).toHaveLength(expected.length);
    expected.forEach((line, i) => {
      expect(lines[i], `line ${i + 1} of:\n${shown}`).toMatch(samplePattern(line, started.port));
    });
  });

  it('packages with no variables and no credentials, and npm start keeps answering', {
    timeout: 240_000,
  }, async () => {
    const readme = await readFile(path.join(ROOT, 'README.md'), 'utf8');
    expect(readme).toContain('`npx serverless package`');
    const { said } = await readmePackage();
    expect(said).toMatch(/built for inspection only/);
    const token = await demoToken();
    expect((await fetch(`${started.base}/health`)).status).toBe(200);
    const jobs = await fetch(`${started.base}/jobs`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(jobs.status, await jobs.clone().text()).toBe(200);

    // A build deleted under it anyway is built again, said in one line.
    const before = started.printed().length;
    await rm(path.join(ROOT, `.esbuild/start-${started.port}`), { recursive: true, force: true });
    await started.waitFor('Functions ready again at', before);
    expect(started.printed().slice(before)).toMatch(
      /The build in \.esbuild\/start-\d+ was deleted/,
    );
    expect((await fetch(`${started.base}/health`)).status).toBe(200);
  });

  it('stops on a Ctrl-C in a terminal (its whole process group signalled), leaves nothing behind, and ends by SIGINT', {
    timeout: 60_000,
  }, async () => {
    // On ports other than 4010 the functions read a copy that names this run's emulator.
    const copy = /secrets: (\S+\.json)/.exec(started.printed())?.[1];
    expect(copy).toMatch(/[\\/]\.local[\\/]demo-secret-\d+\.json$/);
    expect(existsSync(copy!)).toBe(true);
    const build = path.join(ROOT, `.esbuild/start-${started.port}`);
    expect(existsSync(build)).toBe(true);
    const before = started.printed().length;
    // A terminal's Ctrl-C: SIGINT to every process of the foreground group, npm and node alike;
    // npm then passes one more on to node.
    process.kill(-started.pid, 'SIGINT');
    // npm ends by SIGINT in turn once node has (the shell sees 130), saying nothing more.
    expect(await started.ended).toEqual({ code: null, signal: 'SIGINT' });
    // One stop, said once (the request lines of the tests before may still come through).
    const after = started.printed().slice(before);
    expect(after.match(/SIGINT: stopping\.\.\./g), after).toHaveLength(1);
    expect(after).not.toMatch(/cleanup failed|npm error/);
    expect(existsSync(copy!)).toBe(false);
    expect(existsSync(build)).toBe(false);
    // Nothing of the group is left, and serverless offline and the stand-in let go of their ports.
    expect(() => process.kill(-started.pid, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }));
    expect(await isPortFree(started.port)).toBe(true);
    expect(await isPortFree(started.port + 1)).toBe(true);
  });
});
