/**
 * Cold start as deployed: every packaged function's first answer (its bundle required as
 * Lambda requires a `.cjs` handler, then one sample event from `events/`) in a fresh Node
 * process, with the environment the template gives it (NODE_OPTIONS included), for each way the
 * secret can be read:
 *   file       SECRETS_SOURCE=file (what no deployed function uses; for comparison)
 *   signed     the default deploy: one signed GetSecretValue request over undici, against a
 *              loopback server that speaks GetSecretValue
 *   sdk        SECRETS_READER=sdk: the AWS SDK (the runtime's, on NODE_PATH), against the same
 *   extension  the Parameters and Secrets Lambda Extension's protocol (a stage that attaches
 *              its layer), answered by the same loopback server
 * beside an empty handler's, for scale. Upstream calls go to the emulator (in this process).
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Webhook } from 'standardwebhooks';
import { demoSecretFor, startEmulator } from '../emulator/index.ts';
import { jsonObjectOf } from '../lib/core/json.ts';
import type { SecretCapability } from '../lib/core/secret-capabilities.ts';
import { routes } from '../lib/http/routes/index.ts';
import { splitByCapability } from '../lib/secrets/schema.ts';
import { median } from './harness.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const run = promisify(execFile);
const SECRET_ID = 'platform-gateway/dev/platform';

/** Required as Lambda requires a CommonJS handler; prints import and first-answer times. */
const RUNTIME = `
const t0 = performance.now();
const handler = require(process.argv[1])[process.argv[2]];
const t1 = performance.now();
const deadline = Date.now() + 10000;
const context = { awsRequestId: 'bench', getRemainingTimeInMillis: () => deadline - Date.now() };
Promise.resolve(handler(JSON.parse(process.argv[3]), context)).then((result) => {
  const t2 = performance.now();
  process.stdout.write('\\n@result ' + JSON.stringify({ importMs: t1 - t0, firstMs: t2 - t0, status: result && result.statusCode }) + '\\n');
});
`;

/** A handler's import time and first answer, in a fresh process as Lambda loads it. */
export async function firstAnswerOnce(
  node: string,
  file: string,
  exportName: string,
  event: unknown,
  env: NodeJS.ProcessEnv,
): Promise<{ importMs: number; firstMs: number; status?: number }> {
  const { stdout } = await run(node, ['-e', RUNTIME, file, exportName, JSON.stringify(event)], {
    env,
  });
  // The function's own log lines share stdout: the result is the marked line.
  const line = stdout.split('\n').find((l) => l.startsWith('@result '));
  if (!line) throw new Error(`no result from ${file}: ${stdout.slice(-500)}`);
  return JSON.parse(line.slice('@result '.length));
}

type Shape = 'file' | 'signed' | 'sdk' | 'extension';
const SHAPES: Shape[] = ['file', 'signed', 'sdk', 'extension'];

function functionOf(event: Record<string, unknown>): string | undefined {
  if (Array.isArray(event.Records)) return 'consumeInvocations';
  if (event.source === 'aws.events') return 'watchScanJobs';
  if (event.routeKey === '$default') return 'fallback';
  return routes.find((r) => `${r.method} ${r.path}` === event.routeKey)?.function;
}

/**
 * GetSecretValue (AWS JSON 1.1) and the extension's GET, both answering the demo secret: a
 * secret named after a capability (`platform-gateway/dev/signing`, as a stage that splits its
 * secret names them) answers that capability's part, any other the whole document.
 */
export function startSecretsStandIn(secretText: string): Promise<Server> {
  const parts = splitByCapability(JSON.parse(secretText) as Record<string, unknown>);
  const answerFor = (secretId: string) => {
    const capability = secretId.split('/').pop() as SecretCapability;
    const part = Object.hasOwn(parts, capability) ? parts[capability] : undefined;
    return JSON.stringify({
      ARN: `arn:aws:secretsmanager:us-east-1:123456789012:secret:${secretId}-AbCdEf`,
      Name: secretId,
      SecretString: part ? JSON.stringify(part) : secretText,
      VersionId: 'v1',
      VersionStages: ['AWSCURRENT'],
      CreatedDate: 1_790_000_000,
    });
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' });
      if (req.headers['x-amz-target'] === 'AmazonSQS.SendMessage') {
        // The SQS client checks the digest of the body it sent.
        const { MessageBody } = JSON.parse(Buffer.concat(chunks).toString()) as {
          MessageBody: string;
        };
        const digest = createHash('md5').update(MessageBody).digest('hex');
        res.end(JSON.stringify({ MessageId: 'bench', MD5OfMessageBody: digest }));
        return;
      }
      const body = jsonObjectOf(Buffer.concat(chunks).toString());
      const asked =
        new URL(req.url ?? '/', 'http://stand-in').searchParams.get('secretId') ??
        (typeof body?.SecretId === 'string' ? body.SecretId : SECRET_ID);
      res.end(answerFor(asked));
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

export async function benchFirstAnswer(out: string, runs: number, node = process.execPath) {
  const emulator = await startEmulator({ quiet: true });
  const secret = demoSecretFor(emulator.url);
  const secretText = JSON.stringify(secret);
  const work = mkdtempSync(path.join(tmpdir(), 'first-answer-'));
  const secretFile = path.join(work, 'secret.json');
  writeFileSync(secretFile, secretText);
  const standIn = await startSecretsStandIn(secretText);
  const secretsPort = (standIn.address() as AddressInfo).port;
  const emptyHandler = path.join(work, 'empty.cjs');
  writeFileSync(emptyHandler, 'exports.handler = async () => ({ statusCode: 200 });');
  const webhookSecret = (secret as { webhooks: Record<string, { secret: string }> }).webhooks.demo!
    .secret;

  const template = JSON.parse(
    readFileSync(path.join(out, 'cloudformation-template-update-stack.json'), 'utf8'),
  ).Resources as Record<
    string,
    {
      Type: string;
      Properties: { Handler: string; Environment?: { Variables?: Record<string, unknown> } };
    }
  >;
  const events = new Map<string, { file: string; event: Record<string, unknown> }>();
  for (const file of readdirSync(path.join(ROOT, 'events')).sort()) {
    const event = JSON.parse(readFileSync(path.join(ROOT, 'events', file), 'utf8'));
    const name = functionOf(event);
    if (name && !events.has(name)) events.set(name, { file, event });
  }

  const unpacked = mkdtempSync(path.join(work, 'zips-'));
  const functions = Object.entries(template)
    .filter(([, r]) => r.Type === 'AWS::Lambda::Function')
    .map(([id, r]) => {
      const name = id.replace(/LambdaFunction$/, '').replace(/^./, (c) => c.toLowerCase());
      const dir = path.join(unpacked, name);
      // The environment the template sets that does not name a resource (NODE_OPTIONS, LOG_LEVEL,
      // ...): the benchmark runs each function as it deploys.
      const deployed = Object.fromEntries(
        Object.entries(r.Properties.Environment?.Variables ?? {}).filter(
          (entry): entry is [string, string] => typeof entry[1] === 'string' && entry[1] !== '',
        ),
      );
      return { name, dir, handler: r.Properties.Handler, deployed };
    });
  for (const fn of functions) {
    await run('unzip', ['-q', '-o', path.join(out, `${fn.name}.zip`), '-d', fn.dir]);
  }

  const envOf = (shape: Shape, fn: { name: string; deployed: Record<string, string> }) => ({
    ...fn.deployed,
    PATH: process.env.PATH,
    NODE_PATH: path.join(ROOT, 'node_modules'),
    AWS_LAMBDA_FUNCTION_NAME: `platform-gateway-dev-${fn.name}`,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'AKIDBENCH',
    AWS_SECRET_ACCESS_KEY: 'bench',
    AWS_SESSION_TOKEN: 'bench-session',
    SCAN_BASE_URL: emulator.url,
    OPENAPI_BASE_URL: emulator.url,
    WATCHER_STATE_FILE: path.join(work, `watcher-${shape}-${Math.random()}.json`),
    // The queue, ledger and body bucket a deployed receiver and consumer require: the loopback
    // stand-in answers their SDK calls too (an answer with no fields they read is a success).
    AWS_ENDPOINT_URL: `http://127.0.0.1:${secretsPort}`,
    INVOCATION_QUEUE_URL: `http://127.0.0.1:${secretsPort}/123456789012/invocations.fifo`,
    INVOCATION_DEAD_LETTER_QUEUE_URL: `http://127.0.0.1:${secretsPort}/123456789012/dlq.fifo`,
    DELIVERY_LEDGER_TABLE: 'bench-deliveries',
    // The usage table a deployed HTTP function requires. The bench's callers have no plan and
    // its secret no accountPlan, so no admission calls it: the figures are those of a stage
    // whose callers have no plan.
    USAGE_TABLE: 'bench-usage',
    DELIVERY_BODY_BUCKET: 'bench-bodies',
    ...(shape === 'file'
      ? { SECRETS_SOURCE: 'file', SECRETS_FILE: secretFile }
      : { SECRETS_SOURCE: 'aws', SECRET_ID }),
    ...(shape === 'signed' || shape === 'sdk'
      ? { AWS_ENDPOINT_URL_SECRETS_MANAGER: `http://127.0.0.1:${secretsPort}` }
      : {}),
    ...(shape === 'sdk' ? { SECRETS_READER: 'sdk' } : {}),
    ...(shape === 'extension' ? { SECRETS_EXTENSION_PORT: String(secretsPort) } : {}),
  });

  const once = (file: string, exportName: string, event: unknown, env: NodeJS.ProcessEnv) =>
    firstAnswerOnce(node, file, exportName, event, env);

  const empty: number[] = [];
  const results = new Map<string, Record<Shape, number[]>>();
  const statuses = new Map<string, Set<unknown>>();
  for (let round = 0; round < runs; round++) {
    empty.push((await once(emptyHandler, 'handler', {}, { PATH: process.env.PATH })).firstMs);
    for (const fn of functions) {
      const sample = events.get(fn.name);
      if (!sample) continue;
      for (const shape of SHAPES) {
        emulator.reset();
        let event = sample.event;
        if (fn.name === 'receiveWebhook') {
          const at = new Date();
          const headers = { ...(event.headers as Record<string, string>) };
          headers['webhook-timestamp'] = String(Math.floor(at.getTime() / 1000));
          headers['webhook-signature'] = new Webhook(webhookSecret).sign(
            headers['webhook-id']!,
            at,
            String(event.body),
          );
          event = { ...event, headers };
        }
        const dot = fn.handler.lastIndexOf('.');
        const file = path.join(fn.dir, `${fn.handler.slice(0, dot)}.cjs`);
        const result = await once(file, fn.handler.slice(dot + 1), event, envOf(shape, fn));
        const byShape = results.get(fn.name) ?? { file: [], signed: [], sdk: [], extension: [] };
        byShape[shape].push(result.firstMs);
        results.set(fn.name, byShape);
        const seen = statuses.get(`${fn.name} ${shape}`) ?? new Set();
        seen.add(result.status);
        statuses.set(`${fn.name} ${shape}`, seen);
      }
    }
  }
  await emulator.close();
  await new Promise((resolve) => standIn.close(resolve));

  const version = (await run(node, ['--version'])).stdout.trim();
  console.info(
    `\n4. First answer as deployed (Node ${version}; require + one sample event, fresh process, median of ${runs} ms)`,
  );
  console.info(`   empty handler: ${median(empty).toFixed(1)} ms`);
  console.info(
    '   function              file   signed      sdk   extension   signed/file   sdk/file   extension/file   status',
  );
  const ratios: number[] = [];
  for (const [name, byShape] of [...results].sort(([a], [b]) => a.localeCompare(b))) {
    const [file, signed, sdk, extension] = SHAPES.map((shape) => median(byShape[shape]));
    ratios.push(signed! / file!);
    const status = SHAPES.map((shape) => [...(statuses.get(`${name} ${shape}`) ?? [])].join('/'))
      .filter((value, i, all) => all.indexOf(value) === i)
      .join(' ');
    const cells = [file, signed, sdk, extension].map((ms, i) => ms!.toFixed(1).padStart(i ? 9 : 6));
    const shares = [signed, sdk, extension].map((ms, i) =>
      (ms! / file!).toFixed(2).padStart([14, 11, 17][i]!),
    );
    console.info(`   ${name.padEnd(20)}${cells.join('')}${shares.join('')}   ${status}`);
  }
  console.info(
    `   signed/file (the default deploy) over all functions: median ${median(ratios).toFixed(2)}, max ${Math.max(...ratios).toFixed(2)}`,
  );
}
