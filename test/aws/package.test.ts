/**
 * The package that would be deployed, exercised: `serverless package` of the dev stage, then
 * every zip unpacked and its `.cjs` handler required in a fresh Node process, as Lambda's Node
 * runtime loads a CommonJS handler, with the function's environment taken from the generated
 * CloudFormation template (the `aws` secret source, the queue and tables it references) and
 * AWS reached at moto. Each function answers one sample event from `events/`, with the stage's
 * own tokens and webhook secret; the demo secret's are refused at cold start (500/`900`).
 *
 * What is not the deployed value: the base URLs (the emulator instead of the platform), the
 * resources CloudFormation would create (made in moto, and their references resolved to them),
 * the AWS endpoint (moto), and the AWS SDK that Lambda's runtime provides (this repository's,
 * on NODE_PATH as the runtime puts its own).
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { PutSecretValueCommand } from '@aws-sdk/client-secrets-manager';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoSecretFor } from '../../emulator/index.ts';
import { routes } from '../../lib/http/routes/index.ts';
import { splitByCapability } from '../../lib/secrets/schema.ts';
import * as tables from '../../sls/resolvers/tables.ts';
import { emulatorForSuite } from '../helpers/emulator.ts';
import {
  awsEnv,
  clients,
  createBucket,
  createFifoQueue,
  createSecret,
  createTable,
  unique,
} from './moto.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const EVENTS = path.join(ROOT, 'events');
const run = promisify(execFile);

interface LambdaFunction {
  readonly Type: string;
  readonly Properties: {
    readonly Handler: string;
    readonly Environment?: { Variables: Record<string, unknown> };
    readonly Code: { S3Key: unknown };
  };
}

/**
 * What Lambda's Node.js 24 runtime does for a `.cjs` handler: require it, refuse a handler that
 * takes a callback (a third parameter, unless it streams: Runtime.CallbackHandlerDeprecated),
 * then call the export with the event and a context (which has no callback members on Node 24)
 * and await what it returns. Here the answer must be a promise. Prints the result as JSON on the
 * last line.
 */
const RUNTIME = `
const [file, exportName, eventJson] = process.argv.slice(1);
const deadline = Date.now() + 10000;
const context = {
  functionName: process.env.AWS_LAMBDA_FUNCTION_NAME,
  awsRequestId: 'packaged-' + Date.now(),
  getRemainingTimeInMillis: () => Math.max(deadline - Date.now(), 0),
};
const handler = require(file)[exportName];
if (handler.length >= 3 && !handler[Symbol.for('aws.lambda.runtime.handler.streaming')]) {
  throw new Error('Runtime.CallbackHandlerDeprecated: ' + exportName + ' takes a callback');
}
const answer = handler(JSON.parse(eventJson), context);
if (typeof answer?.then !== 'function') throw new Error(exportName + ' returned no promise');
answer.then(
  (result) => { process.stdout.write('\\n' + JSON.stringify(result ?? null) + '\\n'); },
  (error) => { console.error(error); process.exit(1); },
);
`;

/** The function each sample event belongs to: its route, or its event source. */
function functionOf(event: Record<string, unknown>): string | undefined {
  if (Array.isArray(event.Records)) return 'consumeInvocations';
  if (event.source === 'aws.events') return 'watchScanJobs';
  if (event.routeKey === '$default') return 'fallback';
  const route = routes.find((r) => `${r.method} ${r.path}` === event.routeKey);
  return route?.function;
}

/**
 * The stage's own secret: the demo's, with a token of this stage for each demo caller and a
 * webhook secret of its own (a deployed function refuses the demo's: each sample event's demo
 * token is swapped for its caller's new one).
 */
function stageSecretOf(demo: Record<string, unknown>) {
  const tokens = new Map<string, string>();
  const callers = (demo.callers as { id: string; token: string }[]).map((caller) => {
    const token = `stage-${createHash('sha256').update(caller.token).digest('hex')}`;
    tokens.set(caller.token, token);
    return { ...caller, token };
  });
  const webhookSecret = `whsec_${createHash('sha256').update('package-test').digest('base64')}`;
  const webhooks = demo.webhooks as Record<string, { secret: string }>;
  const secret = {
    ...demo,
    callers,
    webhooks: Object.fromEntries(
      Object.entries(webhooks).map(([name, webhook]) => [
        name,
        { ...webhook, secret: webhookSecret },
      ]),
    ),
  };
  /** The event with its demo token swapped for the stage's. */
  const withStageToken = (event: Record<string, unknown>) => {
    const headers = { ...(event.headers as Record<string, string> | undefined) };
    const token = /^Bearer (.+)$/.exec(headers.authorization ?? '')?.[1];
    if (token && tokens.has(token)) headers.authorization = `Bearer ${tokens.get(token)}`;
    return event.headers ? { ...event, headers } : event;
  };
  return { secret, webhookSecret, withStageToken };
}

/** A webhook delivery signed now: the sample's stored signature is long past its window. */
function freshDelivery(event: Record<string, unknown>, secret: string): Record<string, unknown> {
  const at = new Date();
  const body = String(event.body);
  const headers = { ...(event.headers as Record<string, string>) };
  headers['webhook-timestamp'] = String(Math.floor(at.getTime() / 1000));
  headers['webhook-signature'] = new Webhook(secret).sign(headers['webhook-id']!, at, body);
  return { ...event, headers };
}

describe('the packaged functions, loaded as Lambda loads them, with the deployed settings', () => {
  const emulator = emulatorForSuite();
  let out: string;
  let resources: Record<string, LambdaFunction>;
  const resolved: Record<string, string> = {};
  let stage: ReturnType<typeof stageSecretOf>;

  beforeAll(async () => {
    stage = stageSecretOf(demoSecretFor(emulator.url) as Record<string, unknown>);
    out = await mkdtemp(path.join(tmpdir(), 'sls-packaged-'));
    const workFolder = path.join('.esbuild', path.basename(out));
    try {
      await run(
        path.join(ROOT, 'node_modules/.bin/serverless'),
        ['package', '--stage', 'dev', '--package', out],
        {
          cwd: ROOT,
          env: {
            PATH: process.env.PATH,
            HOME: process.env.HOME,
            SLS_ESBUILD_WORK_FOLDER: workFolder,
            SCAN_BASE_URL: emulator.url,
            OPENAPI_BASE_URL: emulator.url,
          },
        },
      );
    } finally {
      await rm(path.join(ROOT, workFolder), { recursive: true, force: true });
    }
    resources = JSON.parse(
      await readFile(path.join(out, 'cloudformation-template-update-stack.json'), 'utf8'),
    ).Resources;

    // What CloudFormation would create, made in moto; the secrets under the stage's own names.
    const queue = await createFifoQueue(unique('invocations'));
    resolved.INVOCATION_QUEUE_URL = queue.url;
    resolved.INVOCATION_DEAD_LETTER_QUEUE_URL = queue.deadLetterUrl;
    resolved.DELIVERY_BODY_BUCKET = unique('bodies');
    await createBucket(resolved.DELIVERY_BODY_BUCKET);
    resolved.DELIVERY_LEDGER_TABLE = unique('deliveries');
    await createTable(resolved.DELIVERY_LEDGER_TABLE, tables.deliveryLedger);
    resolved.WATCHER_STATE_TABLE = unique('watcher');
    await createTable(resolved.WATCHER_STATE_TABLE, tables.watcherState);
    resolved.USAGE_TABLE = unique('usage');
    await createTable(resolved.USAGE_TABLE, tables.usage);
    resolved.HAND_OFF_BUCKET = unique('hand-off');
    await createBucket(resolved.HAND_OFF_BUCKET);
    // dev splits its secret (the default of every stage): one secret per capability, as
    // `npm run split-secret` cuts them. Its own tokens and webhook secret: not the demo's.
    const parts = splitByCapability(stage.secret);
    for (const [capability, part] of Object.entries(parts)) {
      await createSecret(`platform-gateway/dev/${capability}`, part);
    }
  }, 300_000);

  afterAll(async () => {
    if (out) await rm(out, { recursive: true, force: true });
  });

  /** The function's environment as the template declares it, references resolved. */
  function environmentOf(logicalId: string): Record<string, string> {
    const declared = resources[logicalId]!.Properties.Environment?.Variables ?? {};
    const env: Record<string, string> = {};
    for (const [name, value] of Object.entries(declared)) {
      if (typeof value === 'string') env[name] = value;
      else if (resolved[name] !== undefined) env[name] = resolved[name];
      else throw new Error(`${logicalId}: no stand-in for ${name} = ${JSON.stringify(value)}`);
    }
    return env;
  }

  /** Runs a zip's handler on an event; its demo token swapped for the stage's unless `asIs`. */
  async function invokePackaged(
    name: string,
    event: Record<string, unknown>,
    options: { readonly asIs?: boolean } = {},
  ) {
    const logicalId = `${name.replace(/^./, (c) => c.toUpperCase())}LambdaFunction`;
    const fn = resources[logicalId];
    if (!fn) throw new Error(`no function ${logicalId} in the template`);
    const zip = path.join(out, `${name}.zip`);
    const dir = await mkdtemp(path.join(tmpdir(), `lambda-task-${name}-`));
    try {
      await run('unzip', ['-q', zip, '-d', dir]);
      const handler = fn.Properties.Handler;
      const dot = handler.lastIndexOf('.');
      const file = path.join(dir, `${handler.slice(0, dot)}.cjs`);
      const env = environmentOf(logicalId);
      expect(env.SECRETS_SOURCE, name).toBe('aws');
      const { stdout } = await run(
        process.execPath,
        [
          '-e',
          RUNTIME,
          file,
          handler.slice(dot + 1),
          JSON.stringify(options.asIs ? event : stage.withStageToken(event)),
        ],
        {
          cwd: dir,
          env: {
            PATH: process.env.PATH,
            ...env,
            ...awsEnv(),
            AWS_LAMBDA_FUNCTION_NAME: `platform-gateway-dev-${name}`,
            LAMBDA_TASK_ROOT: dir,
            // Lambda's Node.js runtime provides the AWS SDK v3 on NODE_PATH; the bundles leave it out.
            NODE_PATH: path.join(ROOT, 'node_modules'),
          },
        },
      );
      const lines = stdout.trim().split('\n');
      return JSON.parse(lines.at(-1)!) as Record<string, unknown>;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  it('has a sample event for every packaged function', async () => {
    const functionsWithEvents = new Set<string>();
    for (const file of await readdir(EVENTS)) {
      const event = JSON.parse(await readFile(path.join(EVENTS, file), 'utf8'));
      const name = functionOf(event);
      if (name) functionsWithEvents.add(name);
    }
    const packaged = Object.entries(resources)
      .filter(([, r]) => r.Type === 'AWS::Lambda::Function')
      .map(([id]) => id.replace(/LambdaFunction$/, '').replace(/^./, (c) => c.toLowerCase()));
    expect(packaged.filter((name) => !functionsWithEvents.has(name))).toEqual([]);
  });

  it('answers each sample event from every zip', { timeout: 300_000 }, async () => {
    const answered = new Set<string>();
    for (const file of (await readdir(EVENTS)).sort()) {
      let event = JSON.parse(await readFile(path.join(EVENTS, file), 'utf8'));
      const name = functionOf(event);
      if (!name || answered.has(name)) continue;
      if (name === 'receiveWebhook') event = freshDelivery(event, stage.webhookSecret);
      emulator.reset();
      const result = await invokePackaged(name, event);
      answered.add(name);
      if (name === 'consumeInvocations') {
        // The sample batch holds one message for an action that does not exist: it is parked in
        // the dead-letter queue at once, so no message comes back.
        expect(result, file).toEqual({ batchItemFailures: [] });
      } else if (name === 'watchScanJobs') {
        expect(result, file).toMatchObject({ baselined: 25 });
      } else if (name === 'fallback') {
        // The sample calls a known path with a method it does not take.
        expect(result.statusCode, file).toBe(405);
      } else {
        expect(result.statusCode, `${file}: ${JSON.stringify(result.body)}`).toBeLessThan(300);
      }
    }
    expect(answered.size).toBe(
      Object.values(resources).filter((r) => r.Type === 'AWS::Lambda::Function').length,
    );
  });

  it('hands off a report too large to return from its zip: the upload beside the bundle loads', {
    timeout: 120_000,
  }, async () => {
    emulator.reset();
    emulator.answerSizes.set('report', 7 * 1024 * 1024);
    const event = JSON.parse(await readFile(path.join(EVENTS, 'jobs-report.json'), 'utf8'));

    const result = await invokePackaged('getJobReport', event);

    expect(result.statusCode, JSON.stringify(result.body)).toBe(303);
    const headers = result.headers as Record<string, string>;
    const stored = Buffer.from(await (await fetch(headers.location!)).arrayBuffer());
    expect(stored.length).toBe(7 * 1024 * 1024);
    expect(`sha-256=:${createHash('sha256').update(stored).digest('base64')}:`).toBe(
      headers['answer-digest'],
    );
  });

  it("refuses the demo secret's tokens and webhook secret at cold start, in dev too: 500/900", {
    timeout: 120_000,
  }, async () => {
    const demo = splitByCapability(demoSecretFor(emulator.url));
    const secrets = clients.secrets();
    const put = (capability: string, value: unknown) =>
      secrets.send(
        new PutSecretValueCommand({
          SecretId: `platform-gateway/dev/${capability}`,
          SecretString: JSON.stringify(value),
        }),
      );
    try {
      await put('callers', demo.callers);
      await put('webhooks', demo.webhooks);
      emulator.reset();
      const list = JSON.parse(await readFile(path.join(EVENTS, 'jobs-list.json'), 'utf8'));
      const receive = JSON.parse(
        await readFile(path.join(EVENTS, 'webhooks-receive.json'), 'utf8'),
      );
      const secret = (
        demoSecretFor(emulator.url) as { webhooks: Record<string, { secret: string }> }
      ).webhooks.demo!.secret;

      // The demo token itself, as a caller who read this repository would send it.
      const refused = [
        await invokePackaged('listJobs', list, { asIs: true }),
        await invokePackaged('receiveWebhook', freshDelivery(receive, secret), { asIs: true }),
      ];

      for (const result of refused) {
        expect(result.statusCode).toBe(500);
        expect(JSON.parse(String(result.body))).toMatchObject({ error: { errorCode: '900' } });
      }
      expect(emulator.requests).toEqual([]);
    } finally {
      const own = splitByCapability(stage.secret);
      await put('callers', own.callers);
      await put('webhooks', own.webhooks);
      secrets.destroy();
    }
  });
});
