/**
 * The deployable package: `serverless package` with no AWS credentials, for a dev stage with
 * the defaults and a prod stage with every optional setting, and the CloudFormation templates
 * it generates. Each function gets the permissions it needs and no more; the queue, its
 * dead-letter queue, the schedule, the routes, the alarms and the stage settings are checked.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '../../lib/http/routes/index.js';

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

/** The roles every function must have, and what each role may do. */
const EXPECTED_ROLE: Record<string, string> = {
  health: 'LogsOnlyRole',
  fallback: 'LogsOnlyRole',
  receiveWebhook: 'WebhookReceiverRole',
  consumeInvocations: 'InvocationConsumerRole',
  watchScanJobs: 'WatcherRole',
};
const LOGS = ['logs:CreateLogStream', 'logs:PutLogEvents'];
const SECRET = 'secretsmanager:GetSecretValue';
const ROLE_ACTIONS: Record<string, string[]> = {
  LogsOnlyRole: [...LOGS],
  SecretReaderRole: [...LOGS, SECRET],
  WebhookReceiverRole: [...LOGS, SECRET, 'sqs:SendMessage', 's3:PutObject'],
  InvocationConsumerRole: [
    ...LOGS,
    SECRET,
    'sqs:ChangeMessageVisibility',
    'sqs:DeleteMessage',
    'sqs:GetQueueAttributes',
    'sqs:ReceiveMessage',
    'sqs:SendMessage',
    'dynamodb:GetItem',
    'dynamodb:UpdateItem',
    's3:GetObject',
  ],
  WatcherRole: [
    ...LOGS,
    SECRET,
    'dynamodb:BatchWriteItem',
    'dynamodb:DeleteItem',
    'dynamodb:PutItem',
    'dynamodb:Scan',
    'dynamodb:UpdateItem',
  ],
};
const XRAY = ['xray:PutTraceSegments', 'xray:PutTelemetryRecords'];
/** Example settings, as CI packages with them. */
const URLS = {
  SCAN_BASE_URL: 'https://wsc.apigw.example.com',
  OPENAPI_BASE_URL: 'https://openapi.apigw.example.com',
};
const PROD_SETTINGS = {
  ...URLS,
  SECRET_ID: 'arn:aws:secretsmanager:us-east-1:123456789012:secret:gw/prod/platform',
  SECRET_KMS_KEY_ARN: 'arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab',
  EVENT_BUS_NAME: 'scan-events',
};
const ALARM_TOPIC = 'arn:aws:sns:us-east-1:123456789012:on-call';
const EXTENSION_LAYER =
  'arn:aws:lambda:us-east-1:177933569100:layer:AWS-Parameters-and-Secrets-Lambda-Extension-Arm64:12';

interface Packaged {
  readonly dir: string;
  readonly resources: Record<string, Resource>;
}

/** `serverless package` of a stage into a fresh folder, with only these settings. */
async function packageStage(
  stage: string,
  settings: Record<string, string>,
  params: string[] = [],
): Promise<Packaged> {
  const dir = await mkdtemp(path.join(tmpdir(), `sls-package-${stage}-`));
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    SLS_ESBUILD_WORK_FOLDER: path.join('.esbuild', path.basename(dir)),
    ...settings,
  };
  try {
    await run(
      path.join(ROOT, 'node_modules/.bin/serverless'),
      ['package', '--stage', stage, '--package', dir, ...params.map((p) => `--param=${p}`)],
      { cwd: ROOT, env },
    );
  } finally {
    await rm(path.join(ROOT, env.SLS_ESBUILD_WORK_FOLDER!), { recursive: true, force: true });
  }
  const template = JSON.parse(
    await readFile(path.join(dir, 'cloudformation-template-update-stack.json'), 'utf8'),
  ) as { Resources: Record<string, Resource> };
  return { dir, resources: template.Resources };
}

describe('serverless package and its CloudFormation template', () => {
  let out: string;
  let resources: Record<string, Resource>;
  let prod: Packaged;
  const functions = (of = resources) =>
    Object.entries(of).filter(([, r]) => r.Type === 'AWS::Lambda::Function');
  const functionName = (logicalId: string) => logicalId.replace(/LambdaFunction$/, '');

  beforeAll(async () => {
    const dev = await packageStage('dev', URLS);
    out = dev.dir;
    resources = dev.resources;
    prod = await packageStage('prod', PROD_SETTINGS, [
      `alarmTopicArn=${ALARM_TOPIC}`,
      `secretsExtensionLayerArn=${EXTENSION_LAYER}`,
    ]);
  }, 300_000);

  afterAll(async () => {
    for (const dir of [out, prod?.dir]) if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('refuses to package a stage without its base URLs, naming them', async () => {
    const attempt = run(
      path.join(ROOT, 'node_modules/.bin/serverless'),
      ['package', '--stage', 'prod'],
      {
        cwd: ROOT,
        env: { PATH: process.env.PATH, HOME: process.env.HOME },
      },
    );
    const failure = (await attempt.catch((error: unknown) => error)) as {
      code?: number;
      stdout?: string;
      stderr?: string;
    };
    expect(failure.code).not.toBe(0);
    const output = `${failure.stdout ?? ''}${failure.stderr ?? ''}`;
    expect(output).toContain('SCAN_BASE_URL is required');
    expect(output).toContain('OPENAPI_BASE_URL is required');
    // prod's alarms must notify someone: no topic, no package.
    expect(output).toContain('alarmTopicArn parameter is required for the prod stage');
  });

  it('builds one artifact per function, holding its bundle and source map only', async () => {
    const zips = (await readdir(out)).filter((f) => f.endsWith('.zip'));
    expect(zips.length).toBe(functions().length);
    for (const [logicalId, resource] of functions()) {
      const key = JSON.stringify((resource.Properties.Code as { S3Key: unknown }).S3Key);
      expect(key, logicalId).toContain(
        `${functionName(logicalId).replace(/^./, (c) => c.toLowerCase())}.zip`,
      );
    }
  });

  it('runs every function on nodejs22.x', () => {
    for (const [, resource] of functions()) expect(resource.Properties.Runtime).toBe('nodejs22.x');
  });

  it('gives each function the role of its kind and never the framework default role', () => {
    expect(resources.IamRoleLambdaExecution).toBeUndefined();
    for (const [logicalId, resource] of functions()) {
      const name = functionName(logicalId).replace(/^./, (c) => c.toLowerCase());
      const role = (resource.Properties.Role as { 'Fn::GetAtt': [string, string] })[
        'Fn::GetAtt'
      ][0];
      expect(role, name).toBe(EXPECTED_ROLE[name] ?? 'SecretReaderRole');
    }
  });

  it.each(Object.entries(ROLE_ACTIONS))('lets %s do exactly what it needs', (roleId, expected) => {
    const policies = (resources[roleId]?.Properties.Policies ?? []) as Policy[];
    const statements = policies.flatMap((policy) => policy.PolicyDocument.Statement);
    const actions = statements.flatMap((s) => (Array.isArray(s.Action) ? s.Action : [s.Action]));
    expect([...new Set(actions)].sort()).toEqual([...expected, ...XRAY].sort());
    for (const statement of statements) {
      expect(statement.Effect).toBe('Allow');
      expect(JSON.stringify(statement.Action)).not.toContain('*');
      // Only X-Ray, which has no resource ARNs, gets '*'.
      if (JSON.stringify(statement.Resource) === '"*"') {
        expect(statement.Action).toEqual(XRAY);
      }
    }
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
    expect(decrypt.Roles).toHaveLength(4);
    const publish = found.PublishScanJobChangesPolicy?.Properties as {
      Roles: unknown[];
      PolicyDocument: { Statement: Statement[] };
    };
    expect(publish.Roles).toEqual([{ Ref: 'WatcherRole' }]);
    expect(publish.PolicyDocument.Statement[0]?.Action).toBe('events:PutEvents');
    expect(JSON.stringify(publish.PolicyDocument.Statement[0]?.Resource)).toContain(
      'event-bus/scan-events',
    );
    // A partial ARN gets Secrets Manager's suffix pattern.
    expect(JSON.stringify(prod.resources.SecretReaderRole?.Properties.Policies)).toContain(
      `"${PROD_SETTINGS.SECRET_ID}-??????"`,
    );
  });

  it('scopes the secret to the one secret of the stage', () => {
    const text = JSON.stringify(resources.SecretReaderRole?.Properties.Policies);
    expect(text).toContain('secret:platform-gateway/dev/platform-??????');
  });

  it('scopes queue and table permissions to their own resources', () => {
    expect(JSON.stringify(resources.WebhookReceiverRole?.Properties.Policies)).toContain(
      '{"Fn::GetAtt":["InvocationQueue","Arn"]}',
    );
    const consumerPolicies = JSON.stringify(resources.InvocationConsumerRole?.Properties.Policies);
    expect(consumerPolicies).toContain('{"Fn::GetAtt":["InvocationQueue","Arn"]}');
    expect(consumerPolicies).toContain('{"Fn::GetAtt":["DeliveryLedgerTable","Arn"]}');
    const watcher = JSON.stringify(resources.WatcherRole?.Properties.Policies);
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

  it('keeps delivery bodies private, encrypted, reachable over TLS only, and for 15 days', () => {
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

  it('zips each bundle with its source map and nothing else', async () => {
    for (const zip of (await readdir(out)).filter((f) => f.endsWith('.zip'))) {
      const { stdout } = await run('unzip', ['-Z1', path.join(out, zip)]);
      const entries = stdout
        .trim()
        .split('\n')
        .filter((entry) => !entry.endsWith('/'));
      expect(entries.length, zip).toBe(2);
      expect(
        entries.filter((e) => e.endsWith('.cjs')),
        zip,
      ).toHaveLength(1);
      expect(
        entries.filter((e) => e.endsWith('.cjs.map')),
        zip,
      ).toHaveLength(1);
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
    const table = (of: Record<string, Resource>) =>
      of.WatcherStateTable as Resource & { DeletionPolicy: string };
    expect(table(resources).DeletionPolicy).toBe('Delete');
    expect(table(prod.resources).DeletionPolicy).toBe('Retain');
    expect(propertiesOf(resources, 'WatcherStateTable').PointInTimeRecoverySpecification).toEqual({
      PointInTimeRecoveryEnabled: false,
    });
    expect(
      propertiesOf(prod.resources, 'WatcherStateTable').PointInTimeRecoverySpecification,
    ).toEqual({ PointInTimeRecoveryEnabled: true });
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

  it('writes the HTTP API access log to a log group of its own', () => {
    const settings = propertiesOf(resources, 'HttpApiStage').AccessLogSettings as Record<
      string,
      unknown
    >;
    expect(settings.DestinationArn).toEqual({ 'Fn::GetAtt': ['HttpApiLogGroup', 'Arn'] });
    expect(String(settings.Format)).toContain('$context.status');
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
    for (const alarm of Object.values(dev)) expect(alarm.Properties.AlarmActions).toEqual([]);
    for (const alarm of Object.values(prodAlarms)) {
      expect(alarm.Properties.AlarmActions).toEqual([ALARM_TOPIC]);
    }
  });
});
