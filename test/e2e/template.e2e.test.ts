/**
 * The deployable package: `serverless package` with no AWS credentials, and the CloudFormation
 * template it generates. Each function gets the permissions it needs and no more; the queue,
 * its dead-letter queue, the schedule and the routes are what the contract describes.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '../../lib/routes.js';

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
  WebhookReceiverRole: [...LOGS, SECRET, 'sqs:SendMessage'],
  InvocationConsumerRole: [
    ...LOGS,
    SECRET,
    'sqs:ChangeMessageVisibility',
    'sqs:DeleteMessage',
    'sqs:GetQueueAttributes',
    'sqs:ReceiveMessage',
    'dynamodb:DeleteItem',
    'dynamodb:GetItem',
    'dynamodb:UpdateItem',
  ],
  WatcherRole: [...LOGS, SECRET, 'dynamodb:Scan', 'dynamodb:UpdateItem', 'events:PutEvents'],
};

describe('serverless package and its CloudFormation template', () => {
  let out: string;
  let resources: Record<string, Resource>;
  let conditions: Record<string, unknown>;
  const functions = () =>
    Object.entries(resources).filter(([, r]) => r.Type === 'AWS::Lambda::Function');
  const functionName = (logicalId: string) => logicalId.replace(/LambdaFunction$/, '');

  beforeAll(async () => {
    out = await mkdtemp(path.join(tmpdir(), 'sls-package-'));
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME };
    env.SLS_ESBUILD_WORK_FOLDER = path.join('.esbuild', path.basename(out));
    await run(path.join(ROOT, 'node_modules/.bin/serverless'), ['package', '--package', out], {
      cwd: ROOT,
      env,
    });
    const template = JSON.parse(
      await readFile(path.join(out, 'cloudformation-template-update-stack.json'), 'utf8'),
    ) as { Resources: Record<string, Resource>; Conditions: Record<string, unknown> };
    resources = template.Resources;
    conditions = template.Conditions;
  }, 240_000);

  afterAll(async () => {
    if (out) await rm(out, { recursive: true, force: true });
    await rm(path.join(ROOT, '.esbuild', path.basename(out ?? 'none')), {
      recursive: true,
      force: true,
    });
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
    const policies = (resources[roleId]?.Properties.Policies ?? []) as unknown[];
    const statements = policies.flatMap((policy) => {
      // A conditional policy (Fn::If [condition, policy, AWS::NoValue]) counts when present.
      const resolved =
        (policy as { 'Fn::If'?: [string, Policy, unknown] })['Fn::If']?.[1] ?? policy;
      return (resolved as Policy).PolicyDocument.Statement;
    });
    const actions = statements.flatMap((s) => (Array.isArray(s.Action) ? s.Action : [s.Action]));
    expect([...new Set(actions)].sort()).toEqual([...expected].sort());
    for (const statement of statements) {
      expect(statement.Effect).toBe('Allow');
      expect(JSON.stringify(statement.Resource)).not.toBe('"*"');
      expect(JSON.stringify(statement.Action)).not.toContain('*');
    }
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
    expect(watcher).toContain('event-bus/');
    // PutEvents exists only when a bus is configured at deploy time (not here).
    expect(conditions.PublishesEvents).toEqual({ 'Fn::Not': [{ 'Fn::Equals': ['', ''] }] });
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

  it('has a FIFO invocation queue with a FIFO dead-letter queue', () => {
    const queue = resources.InvocationQueue?.Properties as Record<string, unknown>;
    const dlq = resources.InvocationDeadLetterQueue?.Properties as Record<string, unknown>;
    expect(queue.FifoQueue).toBe(true);
    expect(queue.ContentBasedDeduplication).toBe(false);
    expect(dlq.FifoQueue).toBe(true);
    expect(queue.RedrivePolicy).toEqual({
      deadLetterTargetArn: { 'Fn::GetAtt': ['InvocationDeadLetterQueue', 'Arn'] },
      maxReceiveCount: 5,
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
    expect(env.SECRETS_SOURCE).toBe('aws');
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

  it('declares exactly the routes of lib/routes.ts, plus the catch-all', () => {
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
});
