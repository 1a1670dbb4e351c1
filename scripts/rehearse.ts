/**
 * `npm run rehearse`: docs/deploy.md's "Deploy from zero", followed as printed against a
 * stand-in AWS, then every deployed function run from the code the stand-in holds, then the stack
 * removed; a transcript of it all on stdout. Exits 1 when a step fails.
 *
 * 1. The stand-in: moto's server (scripts/rehearse/stand-in-aws.ts), for an account of 1,000
 *    concurrent executions, and the embedded emulator as the platform.
 * 2. The guide: every bash block of its section 0, in order, in one shell, in a clone of the
 *    project (scripts/deploy/clone.ts), with AWS_ENDPOINT_URL (and the stand-in's credentials) the
 *    only difference from a reader's shell. What the guide leaves to the reader (each `<...>`, the
 *    platform's example URLs, the stage) is filled with the stand-in's values, each fill printed;
 *    a `<...>` the rehearsal cannot fill stops it. So the guide's own commands create the secrets
 *    (split-secret, create-secret), the topic and the on-call role, run the preflight with the
 *    stand-in's credentials, deploy with moto's CloudFormation (whose template validation, cfn-lint
 *    with every finding fatal, stays on), read `serverless info`, and smoke-test the URL (the
 *    HTTP API stand-in below).
 * 3. What the stand-in holds: the stack's resources, created or only recorded.
 * 4. The functions (scripts/rehearse/lambda-host.ts: GetFunction's code, checked against its
 *    SHA-256, run with the environment the stand-in's Lambda holds and the credentials of the
 *    function's role): an API Gateway event for every route of the registry through the deployed
 *    routes (scripts/rehearse/http-api.ts), a signed delivery to each webhook of the stage's
 *    secret, each queue's batches through its event source mapping, each schedule's event.
 * 5. `serverless remove`, and the stand-in left without the stack and its functions.
 */
import { spawn } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import {
  CloudFormationClient,
  DescribeStacksCommand,
  GetTemplateCommand,
  paginateListStackResources,
  type StackResourceSummary,
} from '@aws-sdk/client-cloudformation';
import { EventBridgeClient, ListTargetsByRuleCommand } from '@aws-sdk/client-eventbridge';
import {
  GetFunctionConfigurationCommand,
  LambdaClient,
  ListEventSourceMappingsCommand,
  ListFunctionsCommand,
  UpdateEventSourceMappingCommand,
} from '@aws-sdk/client-lambda';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import {
  DeleteMessageBatchCommand,
  GetQueueUrlCommand,
  ReceiveMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { Webhook } from 'standardwebhooks';
import { demoCredentials, type Emulator, startEmulator } from '../emulator/index.ts';
import { routes as registry } from '../lib/http/routes/index.ts';
import { FUNCTIONS } from '../sls/functions.ts';
import { VALID } from '../test/helpers/route-requests.ts';
import { callerAccount } from './deploy/account.ts';
import { linkedClone } from './deploy/clone.ts';
import { blocksOfSection, commandsOf, fill, placeholdersOf } from './deploy/guide.ts';
import { commandLine, noArguments } from './local/args.ts';
import { nodeLine } from './local/node-line.ts';
import { PROJECT_ROOT } from './local/paths.ts';
import { newCaller } from './new-caller.ts';
import {
  type DeployedRoute,
  deployedRoutesIn,
  selectRoute,
  startHttpApi,
} from './rehearse/http-api.ts';
import { type Invocation, LambdaHost } from './rehearse/lambda-host.ts';
import {
  enforceIdentities,
  startAccountSettingsFront,
  startMoto,
} from './rehearse/stand-in-aws.ts';

const GUIDE = 'docs/deploy.md';
const SECTION = '0. Deploy from zero';
const STAGE = 'rehearsal';
/** The account's concurrency limit on the stand-in: AWS's default quota. */
const CONCURRENCY_LIMIT = 1000;

const out = (line = '') => process.stdout.write(`${line}\n`);
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

class RehearsalFailure extends Error {}

/** What the rehearsal found wrong (it goes on where it can, and fails at the end). */
const failures: string[] = [];
function expect(ok: boolean, what: string): boolean {
  if (!ok) failures.push(what);
  return ok;
}

type Resources = Record<string, { Type: string; Properties?: Record<string, unknown> }>;

interface Stack {
  readonly name: string;
  readonly summaries: StackResourceSummary[];
  readonly resources: Resources;
}

/** The deployer's policy as the guide prints it: the JSON block of "The deployer's permissions". */
function deployerPolicyOf(markdown: string): string {
  const section = markdown.slice(markdown.indexOf("### The deployer's permissions"));
  const policy = /```json\n([\s\S]*?)```/.exec(section)?.[1];
  if (!policy) throw new RehearsalFailure(`${GUIDE} prints no deployer's policy`);
  JSON.parse(policy);
  return policy;
}

/** Runs `script` with bash in `cwd`; its output goes to the transcript, indented. */
function bash(script: string, cwd: string, env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    for (const stream of [child.stdout, child.stderr]) {
      let rest = '';
      stream.on('data', (chunk: Buffer) => {
        const lines = (rest + chunk.toString()).split('\n');
        rest = lines.pop() ?? '';
        for (const line of lines) out(`  │ ${line}`);
      });
      stream.on('end', () => {
        if (rest) out(`  │ ${rest}`);
      });
    }
    child.once('error', reject);
    child.once('exit', (code) => resolve(code ?? 1));
  });
}

/**
 * The guide's blocks, filled, as one script that prints each command before it runs it. Before
 * `serverless deploy`, moto's IAM authorization is turned off (`authOff`): moto miscomputes the
 * signature of an S3 request whose query holds a `/`, which the framework sends (it lists its
 * artifacts under `serverless/<service>/<stage>/`), so the deployer's policy is checked on the
 * guide's own commands and the preflight, not on the framework's calls.
 */
function guideScript(
  markdown: string,
  fills: readonly (readonly [string, string])[],
  authOff: string,
): string {
  const blocks = blocksOfSection(markdown, SECTION);
  const unused = fills.filter(([from]) => !blocks.some((block) => block.text.includes(from)));
  if (unused.length > 0) {
    throw new RehearsalFailure(
      `The guide no longer holds ${unused.map(([from]) => from).join(', ')}: update the rehearsal's fills.`,
    );
  }
  // One stream, so that each command's trace (set -x, on stderr) comes before its output.
  const parts = ['exec 2>&1', 'set -euo pipefail'];
  for (const block of blocks) {
    const text = fill(block.text, fills);
    const left = placeholdersOf(text);
    if (left.length > 0) {
      throw new RehearsalFailure(
        `${GUIDE}:${block.line} holds ${left.join(', ')}, which the rehearsal cannot fill: add it to its fills.`,
      );
    }
    parts.push(`printf '%s\\n' ${JSON.stringify(`── ${GUIDE}:${block.line} (${block.section})`)}`);
    for (const command of commandsOf(text)) {
      if (/^npx serverless deploy\b/.test(command)) parts.push(authOff);
      parts.push('set -x', command, '{ set +x; } 2>/dev/null');
    }
  }
  return `${parts.join('\n')}\n`;
}

async function stackOf(cloudFormation: CloudFormationClient, name: string): Promise<Stack> {
  const summaries: StackResourceSummary[] = [];
  for await (const page of paginateListStackResources(
    { client: cloudFormation },
    { StackName: name },
  )) {
    summaries.push(...(page.StackResourceSummaries ?? []));
  }
  const template = await cloudFormation.send(new GetTemplateCommand({ StackName: name }));
  return {
    name,
    summaries,
    resources: (JSON.parse(template.TemplateBody ?? '{}') as { Resources: Resources }).Resources,
  };
}

function countByType(types: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const type of types) counts.set(type, (counts.get(type) ?? 0) + 1);
  return counts;
}

const listed = (counts: Map<string, number>) =>
  [...counts]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([type, count]) => `${type.replace(/^AWS::/, '')} ${count}`)
    .join(', ');

/** What the stand-in's CloudFormation created, and what it only recorded (types moto lacks). */
function reportResources(stack: Stack): void {
  const declared = countByType(Object.values(stack.resources).map((resource) => resource.Type));
  const created = countByType(
    stack.summaries.map((each) => each.ResourceType ?? '').filter((type) => type !== ''),
  );
  const recorded = new Map<string, number>();
  for (const [type, count] of declared) {
    const left = count - (created.get(type) ?? 0);
    if (left > 0) recorded.set(type, left);
  }
  const total = (counts: Map<string, number>) => [...counts.values()].reduce((a, b) => a + b, 0);
  out(
    `stack ${stack.name}: ${total(declared)} resources in the template, ${stack.summaries.length} in the stack`,
  );
  out(`  created (${total(created)}): ${listed(created)}`);
  out(
    `  recorded, not created: moto does not implement them (${total(recorded)}): ${listed(recorded)}`,
  );
}

/** A short form of an answer, for the transcript. */
function summaryOf(invocation: Invocation): string {
  if (invocation.error) return `${invocation.error.errorType}: ${invocation.error.errorMessage}`;
  const text = JSON.stringify(invocation.result);
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}

function envelopeCode(text: string): string {
  try {
    const code = (JSON.parse(text) as { error?: { errorCode?: string } }).error?.errorCode;
    return code ? ` ${code}` : '';
  } catch {
    return '';
  }
}

/** The status of every HTTP request the rehearsal sent through the HTTP API stand-in. */
const statuses: number[] = [];

/** What ran, by deployed function: the lines of the transcript. */
const ran = new Map<string, string[]>();
function record(fn: string, line: string): void {
  ran.set(fn, [...(ran.get(fn) ?? []), line]);
}

async function runRoutes(
  apiUrl: string,
  deployed: readonly DeployedRoute[],
  token: string,
  emulator: Emulator,
): Promise<void> {
  const keys = new Set(deployed.map((route) => route.routeKey));
  for (const route of registry) {
    const key = `${route.method} ${route.path}`;
    if (!expect(keys.has(key), `the route ${key} of the registry is not deployed`)) continue;
    const valid = VALID[key];
    if (valid === undefined) {
      expect(false, `no request for the route ${key} (test/helpers/route-requests.ts)`);
      continue;
    }
    const params = valid.path ?? {};
    const pathText = route.path.replace(/\{(\w+)\}/g, (_m, name: string) =>
      encodeURIComponent(params[name] ?? ''),
    );
    const query = new URLSearchParams(valid.query ?? []).toString();
    const method = valid.method ?? (route.method === 'ANY' ? 'POST' : route.method);
    const url = `${apiUrl}${pathText}${query ? `?${query}` : ''}`;
    // Each route on the platform's first state (cancel-reserved would cancel the job the cancel
    // route then finds cancelled).
    emulator.reset();
    const response = await fetch(url, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(valid.contentType ? { 'content-type': valid.contentType } : {}),
      },
      ...(valid.body === undefined ? {} : { body: valid.body }),
    });
    const text = await response.text();
    const fn = selectRoute(deployed, method, pathText)?.route.functionName ?? '?';
    const shown = `${method} ${pathText}${query ? `?${query}` : ''}`;
    statuses.push(response.status);
    record(fn, `${shown} → ${response.status}${envelopeCode(text)}`);
    expect(response.status < 500, `${shown} answered ${response.status}: ${text.slice(0, 200)}`);
  }
  for (const key of keys) {
    if (key === '$default') continue;
    expect(
      registry.some((route) => `${route.method} ${route.path}` === key),
      `the deployed route ${key} is not in the registry`,
    );
  }
  // No route: the $default route's function.
  const response = await fetch(`${apiUrl}/no/such/route`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const text = await response.text();
  const fn = selectRoute(deployed, 'GET', '/no/such/route')?.route.functionName ?? '?';
  statuses.push(response.status);
  record(fn, `GET /no/such/route ($default) → ${response.status}${envelopeCode(text)}`);
  expect(response.status === 404, `GET /no/such/route answered ${response.status}, not 404`);
}

async function runWebhooks(
  apiUrl: string,
  deployed: readonly DeployedRoute[],
  region: string,
): Promise<number> {
  const receiver = deployed.find((route) => route.routeKey === 'POST /webhooks/{name}');
  if (!expect(receiver !== undefined, 'no deployed route POST /webhooks/{name}')) return 0;
  // The webhooks' secrets, where the receiver reads them (its environment on the stand-in).
  const lambda = new LambdaClient({ region });
  const secrets = new SecretsManagerClient({ region });
  try {
    const config = await lambda.send(
      new GetFunctionConfigurationCommand({ FunctionName: receiver!.functionName }),
    );
    const variables = config.Environment?.Variables ?? {};
    const secretId = variables.WEBHOOKS_SECRET_ID || variables.SECRET_ID;
    const value = await secrets.send(new GetSecretValueCommand({ SecretId: secretId }));
    const webhooks =
      (
        JSON.parse(value.SecretString ?? '{}') as {
          webhooks?: Record<string, { secret?: string; secrets?: string[] }>;
        }
      ).webhooks ?? {};
    let sent = 0;
    expect(
      Object.keys(webhooks).length > 0,
      'no webhook in the stage secret to send a delivery to',
    );
    for (const [name, entry] of Object.entries(webhooks)) {
      const key = entry.secret ?? entry.secrets?.at(-1);
      if (!key) continue;
      const id = `msg_${randomUUID()}`;
      const at = new Date();
      const body = '{"name":"Rehearsal"}';
      const response = await fetch(`${apiUrl}/webhooks/${encodeURIComponent(name)}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'webhook-id': id,
          'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
          'webhook-signature': new Webhook(key).sign(id, at, body),
        },
        body,
      });
      const text = await response.text();
      statuses.push(response.status);
      record(
        receiver!.functionName,
        `POST /webhooks/${name} (signed) → ${response.status} ${text.slice(0, 80)}`,
      );
      if (
        expect(
          response.status === 202,
          `the signed delivery to ${name} answered ${response.status}: ${text}`,
        )
      )
        sent++;
    }
    return sent;
  } finally {
    lambda.destroy();
    secrets.destroy();
  }
}

/** Each SQS event source mapping, as Lambda's poller runs it: batches until the queue is empty. */
async function runQueues(
  host: LambdaHost,
  region: string,
  functions: Set<string>,
): Promise<number> {
  const lambda = new LambdaClient({ region });
  const sqs = new SQSClient({ region });
  let messages = 0;
  try {
    const mappings =
      (await lambda.send(new ListEventSourceMappingsCommand({}))).EventSourceMappings ?? [];
    for (const mapping of mappings) {
      const fn = mapping.FunctionArn?.split(':').at(-1) ?? '';
      const source = mapping.EventSourceArn ?? '';
      if (!functions.has(fn) || !source.startsWith('arn:aws:sqs:')) continue;
      const queueName = source.split(':').at(-1)!;
      const { QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName: queueName }));
      const reports = (mapping.FunctionResponseTypes ?? []).includes('ReportBatchItemFailures');
      for (let empty = 0; empty < 2; ) {
        const received = await sqs.send(
          new ReceiveMessageCommand({
            QueueUrl,
            MaxNumberOfMessages: Math.min(mapping.BatchSize ?? 10, 10),
            MessageSystemAttributeNames: ['All'],
            MessageAttributeNames: ['All'],
            WaitTimeSeconds: 1,
          }),
        );
        const batch = received.Messages ?? [];
        if (batch.length === 0) {
          empty++;
          continue;
        }
        messages += batch.length;
        const event = {
          Records: batch.map((message) => ({
            messageId: message.MessageId,
            receiptHandle: message.ReceiptHandle,
            body: message.Body,
            attributes: message.Attributes ?? {},
            messageAttributes: Object.fromEntries(
              Object.entries(message.MessageAttributes ?? {}).map(([name, value]) => [
                name,
                {
                  stringValue: value.StringValue,
                  binaryValue: value.BinaryValue
                    ? Buffer.from(value.BinaryValue).toString('base64')
                    : undefined,
                  stringListValues: [],
                  binaryListValues: [],
                  dataType: value.DataType,
                },
              ]),
            ),
            md5OfBody: createHash('md5')
              .update(message.Body ?? '')
              .digest('hex'),
            eventSource: 'aws:sqs',
            eventSourceARN: source,
            awsRegion: region,
          })),
        };
        const invocation = await host.invoke(fn, event);
        record(fn, `a batch of ${batch.length} from ${queueName} → ${summaryOf(invocation)}`);
        if (!expect(!invocation.error, `${fn} failed on a batch: ${summaryOf(invocation)}`)) break;
        const failed = new Set(
          reports
            ? (
                (invocation.result as { batchItemFailures?: { itemIdentifier: string }[] })
                  ?.batchItemFailures ?? []
              ).map((each) => each.itemIdentifier)
            : [],
        );
        expect(failed.size === 0, `${fn} gave back ${failed.size} message(s) of a batch`);
        const done = batch.filter((message) => !failed.has(message.MessageId ?? ''));
        if (done.length > 0) {
          await sqs.send(
            new DeleteMessageBatchCommand({
              QueueUrl,
              Entries: done.map((message, index) => ({
                Id: String(index),
                ReceiptHandle: message.ReceiptHandle,
              })),
            }),
          );
        }
        if (failed.size > 0) break;
      }
    }
  } finally {
    lambda.destroy();
    sqs.destroy();
  }
  return messages;
}

/** Each schedule of the stack: its rule's event, to each Lambda target. */
async function runSchedules(
  host: LambdaHost,
  stack: Stack,
  region: string,
  account: string,
): Promise<void> {
  const events = new EventBridgeClient({ region });
  try {
    for (const summary of stack.summaries) {
      if (summary.ResourceType !== 'AWS::Events::Rule' || !summary.PhysicalResourceId) continue;
      const rule = summary.PhysicalResourceId.split('/').at(-1)!;
      const schedule =
        stack.resources[summary.LogicalResourceId ?? '']?.Properties?.ScheduleExpression;
      const targets = await events.send(new ListTargetsByRuleCommand({ Rule: rule }));
      for (const target of targets.Targets ?? []) {
        if (!target.Arn?.includes(':lambda:')) continue;
        const fn = target.Arn.split(':').at(-1)!;
        const invocation = await host.invoke(fn, {
          version: '0',
          id: randomUUID(),
          'detail-type': 'Scheduled Event',
          source: 'aws.events',
          account,
          time: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
          region,
          resources: [`arn:aws:events:${region}:${account}:rule/${rule}`],
          detail: {},
        });
        record(fn, `the schedule ${String(schedule ?? rule)} → ${summaryOf(invocation)}`);
        expect(!invocation.error, `${fn} failed on its schedule: ${summaryOf(invocation)}`);
      }
    }
  } finally {
    events.destroy();
  }
}

/** The object at a code location of the stand-in's Lambda (an S3 URL of AWS's own bucket). */
function codeFetcher(region: string, buckets: readonly string[]) {
  const s3 = new S3Client({ region, forcePathStyle: true });
  return async (location: string): Promise<Buffer> => {
    // moto names a location on Lambda's own bucket, which it does not serve; the key is the
    // object its Lambda copied the code from: the deployment bucket's. The host checks the bytes
    // against the SHA-256 the stand-in's Lambda holds.
    const key = decodeURIComponent(new URL(location).pathname.slice(1));
    for (const bucket of buckets) {
      try {
        const object = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
        return Buffer.from(await object.Body!.transformToByteArray());
      } catch {
        // not this bucket
      }
    }
    throw new Error(`no object ${key} in ${buckets.join(', ')}`);
  };
}

async function main(): Promise<number> {
  out(nodeLine('the rehearsal and the deployed functions'));
  const started = performance.now();
  const phases: [string, number][] = [];
  let phaseStart = started;
  const phase = (name: string) => {
    const now = performance.now();
    phases.push([name, now - phaseStart]);
    phaseStart = now;
  };
  const cleanups: (() => Promise<unknown>)[] = [];
  try {
    const markdown = await readFile(path.join(PROJECT_ROOT, GUIDE), 'utf8');
    const region = /export AWS_REGION=([a-z0-9-]+)/.exec(markdown)?.[1] ?? 'us-east-1';
    const moto = await startMoto({ MOTO_LAMBDA_CONCURRENCY_QUOTA: String(CONCURRENCY_LIMIT) });
    cleanups.push(() => moto.stop());
    // The guide runs as the deployer, with the policy the guide prints; moto checks every call.
    const { admin, deployer } = await enforceIdentities(
      moto.endpoint,
      region,
      deployerPolicyOf(markdown),
    );
    const aws = await startAccountSettingsFront(moto.endpoint, CONCURRENCY_LIMIT, admin);
    cleanups.push(() => aws.close());
    // The guide's document holds no gateway API key (only a stage that requires one needs it):
    // the platform's stage here requires none.
    const emulator: Emulator = await startEmulator({
      quiet: true,
      credentials: { ...demoCredentials(), requireApiKey: false },
    });
    cleanups.push(() => emulator.close());

    // This process's own AWS calls go to the stand-in, as the guide's do.
    for (const name of ['AWS_PROFILE', 'AWS_SESSION_TOKEN']) delete process.env[name];
    Object.assign(process.env, {
      AWS_ENDPOINT_URL: aws.endpoint,
      AWS_ACCESS_KEY_ID: admin.accessKeyId,
      AWS_SECRET_ACCESS_KEY: admin.secretAccessKey,
      AWS_REGION: region,
      AWS_EC2_METADATA_DISABLED: 'true',
    });
    const cloudFormation = new CloudFormationClient({ region });
    cleanups.push(async () => cloudFormation.destroy());
    const stackName = `platform-gateway-${STAGE}`;

    let stack: Stack | undefined;
    const loadStack = async () => {
      stack ??= await stackOf(cloudFormation, stackName);
      return stack;
    };
    const functionNameOf = (resources: Stack) => (logicalId: string) =>
      resources.summaries.find((each) => each.LogicalResourceId === logicalId)?.PhysicalResourceId;
    let host: LambdaHost | undefined;
    const hostOf = async () => {
      if (host) return host;
      const loaded = await loadStack();
      const buckets = new Set<string>();
      for (const resource of Object.values(loaded.resources)) {
        if (resource.Type !== 'AWS::Lambda::Function') continue;
        const bucket = (resource.Properties?.Code as { S3Bucket?: unknown } | undefined)?.S3Bucket;
        if (typeof bucket === 'string') buckets.add(bucket);
        else {
          const ref = (bucket as { Ref?: string } | undefined)?.Ref;
          const physical = ref ? functionNameOf(loaded)(ref) : undefined;
          if (physical) buckets.add(physical);
        }
      }
      host = new LambdaHost({
        region,
        endpoint: aws.endpoint,
        codeAt: codeFetcher(region, [...buckets]),
        nodePath: path.join(PROJECT_ROOT, 'node_modules'),
        onLog: (fn, line) => {
          if (/"level":"error"/.test(line)) record(fn, `  log: ${line}`);
        },
      });
      return host;
    };
    cleanups.push(async () => host?.close());
    const api = await startHttpApi(
      async () => {
        const loaded = await loadStack();
        return deployedRoutesIn(loaded.resources, functionNameOf(loaded));
      },
      async (fn, event) => (await hostOf()).invoke(fn, event),
    );
    cleanups.push(() => api.close());

    // The rehearsal's own secret values: a caller and a webhook key made for this run.
    const caller = newCaller({ id: 'rehearsal', scopes: ['*'] });
    const webhookSecret = `whsec_${randomBytes(32).toString('base64')}`;
    const demo = JSON.parse(
      await readFile(path.join(PROJECT_ROOT, 'emulator/demo-secret.json'), 'utf8'),
    ) as {
      iam: { accessKey: string; secretKey: string };
      openapi: { clientId: string; clientSecret: string };
      actions: Record<string, { url: string }>;
      triggers: Record<string, { url: string }>;
    };
    const onEmulator = (url: string) => `${emulator.url}${new URL(url).pathname}`;
    const fills: [string, string][] = [
      ['STAGE=prod', `STAGE=${STAGE}`],
      ['https://wsc.apigw.example.com', emulator.url],
      ['https://openapi.apigw.example.com', emulator.url],
      ['<access key id>', demo.iam.accessKey],
      ['<secret key>', demo.iam.secretKey],
      ['<client id>', demo.openapi.clientId],
      ['<client secret>', demo.openapi.clientSecret],
      ["<the hello action's invoke URL>", onEmulator(demo.actions.hello!.url)],
      ["<the nightly trigger's invoke URL>", onEmulator(demo.triggers.nightly!.url)],
      ["<the webhook's secret>", webhookSecret],
      ['<the entry new-caller printed>', JSON.stringify(caller.entry)],
      ['<your email>', 'on-call@example.com'],
      ['<the URL serverless info printed>', api.url],
      ["<the caller's token>", caller.token],
    ];
    const authOff = [
      "printf '%s\\n' '(the rehearsal: moto checks no caller from here on, see docs/deploy.md section 7)'",
      `curl -sf -X POST -H 'content-type: text/plain' --data-binary inf ${moto.endpoint}/moto-api/reset-auth >/dev/null`,
    ].join('\n');
    const script = guideScript(markdown, fills, authOff);

    out(`Rehearsal of ${GUIDE}, "${SECTION}", against a stand-in AWS`);
    out(
      `  AWS: moto_server at ${moto.endpoint} (its CloudFormation validates templates with cfn-lint, every finding fatal), behind ${aws.endpoint} (Lambda GetAccountSettings: an account of ${CONCURRENCY_LIMIT})`,
    );
    out(`  platform: the emulator at ${emulator.url}`);
    out(
      "  the shell: AWS_ENDPOINT_URL, and the access key of moto's IAM user deployer, whose policy is the guide's own (the deployer's permissions; moto checks each call's action against it); no AWS profile or config of this machine",
    );
    out('  filled in for the reader:');
    for (const [from, to] of fills) {
      const shown =
        from === "<the caller's token>" || from === "<the webhook's secret>"
          ? `${to.slice(0, 10)}… (made for this run)`
          : to;
      out(`    ${from} → ${shown}`);
    }
    phase('the stand-in started');

    const clone = await linkedClone('rehearsal');
    cleanups.push(() => clone.remove());
    const shellEnv: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      LANG: process.env.LANG,
      TERM: 'dumb',
      AWS_ENDPOINT_URL: aws.endpoint,
      AWS_ACCESS_KEY_ID: deployer.accessKeyId,
      AWS_SECRET_ACCESS_KEY: deployer.secretAccessKey,
      AWS_CONFIG_FILE: path.join(clone.dir, '.aws-config-none'),
      AWS_SHARED_CREDENTIALS_FILE: path.join(clone.dir, '.aws-credentials-none'),
      AWS_EC2_METADATA_DISABLED: 'true',
      npm_config_update_notifier: 'false',
      npm_config_fund: 'false',
    };
    out();
    out(`── the guide, as printed (in a clone of the project, ${clone.dir})`);
    const code = await bash(script, clone.dir, shellEnv);
    phase('the guide');
    if (code !== 0)
      throw new RehearsalFailure(
        `the guide's commands stopped (exit ${code}): see the last command above`,
      );

    out();
    out('── what the stand-in holds');
    const deployedStack = await loadStack();
    const status = (await cloudFormation.send(new DescribeStacksCommand({ StackName: stackName })))
      .Stacks?.[0]?.StackStatus;
    out(`stack status: ${status}`);
    expect(status === 'CREATE_COMPLETE' || status === 'UPDATE_COMPLETE', `the stack is ${status}`);
    reportResources(deployedStack);
    const functions = new Set(
      deployedStack.summaries
        .filter((each) => each.ResourceType === 'AWS::Lambda::Function')
        .map((each) => each.PhysicalResourceId ?? ''),
    );
    out(`functions: ${functions.size}`);
    const tabled = Object.keys(FUNCTIONS).length;
    expect(
      functions.size === tabled,
      `${functions.size} functions deployed, ${tabled} in the function table (sls/functions.ts)`,
    );

    out();
    out(
      `── the deployed functions, run from the code the stand-in holds, on Node ${process.version}`,
    );
    const lambda = new LambdaClient({ region });
    cleanups.push(async () => lambda.destroy());
    // moto's own poller runs a queue's function in Docker, which this machine lacks (it would
    // make each message visible again, with one more receive): the rehearsal polls instead.
    for (const mapping of (await lambda.send(new ListEventSourceMappingsCommand({})))
      .EventSourceMappings ?? []) {
      await lambda.send(
        new UpdateEventSourceMappingCommand({ UUID: mapping.UUID, Enabled: false }),
      );
      out(
        `moto's own poller of ${mapping.EventSourceArn?.split(':').at(-1)} turned off: the rehearsal polls it as Lambda does`,
      );
    }
    const deployedRoutes = deployedRoutesIn(deployedStack.resources, functionNameOf(deployedStack));
    await runRoutes(api.url, deployedRoutes, caller.token, emulator);
    const activationsBefore = emulator.actions.activations().length;
    const delivered = await runWebhooks(api.url, deployedRoutes, region);
    const hostNow = await hostOf();
    const batched = await runQueues(hostNow, region, functions);
    expect(
      batched >= delivered,
      `${delivered} deliveries answered 202, ${batched} message(s) reached the consumer`,
    );
    const hello = emulator.actions
      .activations()
      .slice(activationsBefore)
      .filter(
        (each) => each.kind === 'action' && JSON.stringify(each.params).includes('Rehearsal'),
      );
    expect(
      hello.length === delivered,
      `${delivered} deliveries, ${hello.length} run(s) of their action on the platform`,
    );
    const identity = await callerAccount(region);
    const account = 'account' in identity ? identity.account : '';
    await runSchedules(hostNow, deployedStack, region, account);
    for (const fn of [...functions].sort()) {
      const loaded = hostNow.loaded.get(fn);
      const lines = ran.get(fn) ?? [];
      expect(loaded !== undefined && lines.length > 0, `${fn} was deployed but never run`);
      // Each function runs on its runtime's major (nodejs24.x: Node 24), as Lambda runs it.
      expect(
        loaded?.runtime === `nodejs${process.versions.node.split('.')[0]}.x`,
        `${fn}'s runtime is ${loaded?.runtime}, but the rehearsal ran it on Node ${process.version}`,
      );
      out(
        loaded
          ? `${fn}: ${loaded.handler}, ${loaded.runtime}, ${Math.round(loaded.codeBytes / 1024)} KB (SHA-256 as Lambda holds it), ${loaded.environmentVariables} variables, role ${loaded.role.split('/').at(-1)}`
          : `${fn}: not run`,
      );
      for (const line of lines) out(`    ${line}`);
    }
    out(`the platform ran the action of ${hello.length} delivery(ies) once each`);
    const byStatus = [...countByType(statuses.map(String))]
      .sort()
      .map(([status, count]) => `${status} ×${count}`)
      .join(', ');
    out(
      `ran ${hostNow.loaded.size} of ${functions.size} functions: ${statuses.length} HTTP requests (${registry.length} routes of the registry, the $default route, ${delivered} signed deliver${delivered === 1 ? 'y' : 'ies'}; answers ${byStatus}), ${batched} queued message(s), the schedules`,
    );
    phase('the functions');

    out();
    out('── serverless remove');
    const removed = await bash(
      `exec 2>&1\nset -x\nnpx serverless remove --stage ${STAGE}\n`,
      clone.dir,
      {
        ...shellEnv,
        AWS_REGION: region,
        AWS_DEFAULT_REGION: region,
        AWS_ACCESS_KEY_ID: admin.accessKeyId,
        AWS_SECRET_ACCESS_KEY: admin.secretAccessKey,
      },
    );
    expect(removed === 0, `serverless remove failed (exit ${removed})`);
    const after = await cloudFormation
      .send(new DescribeStacksCommand({ StackName: stackName }))
      .then((answer) => answer.Stacks?.[0]?.StackStatus ?? 'gone')
      .catch(() => 'gone');
    const left = ((await lambda.send(new ListFunctionsCommand({}))).Functions ?? []).filter(
      (each) => functions.has(each.FunctionName ?? ''),
    );
    out(`stack: ${after}; functions of the stack left: ${left.length}`);
    expect(
      after === 'gone' || after === 'DELETE_COMPLETE',
      `the stack is ${after} after serverless remove`,
    );
    expect(left.length === 0, `${left.length} function(s) left after serverless remove`);
    phase('serverless remove');
  } catch (error) {
    failures.push(
      error instanceof RehearsalFailure ? error.message : ((error as Error).stack ?? String(error)),
    );
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  }
  out();
  out(
    `── ${failures.length === 0 ? 'rehearsal passed' : 'REHEARSAL FAILED'} in ${seconds(performance.now() - started)} (${phases.map(([name, ms]) => `${name} ${seconds(ms)}`).join(', ')})`,
  );
  for (const failure of failures) out(`FAIL ${failure}`);
  return failures.length === 0 ? 0 : 1;
}

commandLine('usage: npm run rehearse (it takes no argument)', noArguments);
process.exitCode = await main();
