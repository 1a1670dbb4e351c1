/**
 * POST /webhooks/{name} with the real middy stack: deliveries signed by the standardwebhooks
 * library's own signer, handed in process (no INVOCATION_QUEUE_URL) to the consumer's code,
 * which runs the webhook's action on the emulator.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { demoSecretFor } from '../../../emulator/index.ts';
import type { InProcessInvocationQueue } from '../../../lib/webhooks/in-process-queue.ts';
import { createActiveTable, startDynalite } from '../../../scripts/local-ledger.ts';
import * as tables from '../../../sls/resolvers/tables.ts';
import { pointAwsSdkAt } from '../../helpers/aws.ts';
import { emulatorForSuite } from '../../helpers/emulator.ts';
import { type HttpHandler, httpEvent, jsonBody, lambdaContext } from '../../helpers/lambda.ts';
import { captureLogLines } from '../../helpers/logs.ts';
import { emulatorEnv, loadHandlers, secretFile } from '../../helpers/platform.ts';

type ErrorBody = { error: { errorCode: string; message: string; details?: unknown } };

const DEMO_SECRET = demoSecretFor('http://127.0.0.1:1') as {
  webhooks: Record<string, { secret: string; action: string }>;
};
const SECRET = DEMO_SECRET.webhooks.demo!.secret;
const OTHER_SECRET = `whsec_${Buffer.from('integration-other-webhook-0001').toString('base64')}`;
// Each webhook has a secret of its own: a secret two webhooks share is refused at load.
const ORPHAN_SECRET = `whsec_${Buffer.from('integration-orphan-webhook-001').toString('base64')}`;

let counter = 0;
const newId = () => `msg_it${Date.now()}${counter++}`;

interface Delivery {
  name?: string;
  id?: string;
  payload?: string;
  at?: Date;
  secret?: string;
  headers?: Record<string, string | undefined>;
  base64?: boolean;
}

/** A delivery as a Standard Webhooks sender makes it, signed by the library. */
function delivery(options: Delivery = {}) {
  const name = options.name ?? 'demo';
  const id = options.id ?? newId();
  const payload = options.payload ?? '{"name":"Webhook"}';
  const at = options.at ?? new Date();
  const signature = new Webhook(options.secret ?? SECRET).sign(id, at, payload);
  return httpEvent('webhooks-receive.json', {
    path: `/webhooks/${name}`,
    pathParameters: { name },
    body: options.base64 ? Buffer.from(payload).toString('base64') : payload,
    isBase64Encoded: options.base64 ?? false,
    headers: {
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': signature,
      ...options.headers,
    },
  });
}

describe('webhook receiver, locally (in process)', () => {
  const emulator = emulatorForSuite();
  let receive: HttpHandler;
  let queue: InProcessInvocationQueue;
  let logLines: string[];

  const activations = () => emulator.actions.activations().filter((a) => a.kind === 'action');

  beforeAll(async () => {
    const secret = demoSecretFor(emulator.url);
    secret.webhooks = {
      ...(secret.webhooks as object),
      failing: { secret: OTHER_SECRET, action: 'fail' },
      orphan: { secret: ORPHAN_SECRET, action: 'no-such-action' },
    };
    const file = await secretFile(secret);
    ({ receive } = await loadHandlers(
      emulatorEnv(emulator, { SECRETS_FILE: file, INVOCATION_QUEUE_URL: '' }),
      { receive: 'functions/webhooks/receive-local.ts' },
    ));
    // The same module graph as the handler: its container's queue.
    const { inProcessInvocationQueueOf } = await import('../../../lib/webhooks/setup.ts');
    const { getRuntime } = await import('../../../lib/runtime.ts');
    queue = inProcessInvocationQueueOf(getRuntime());
  });
  beforeEach(() => {
    logLines = [];
    vi.spyOn(console, 'log').mockImplementation((line: unknown) => {
      logLines.push(String(line));
    });
  });
  afterEach(async () => {
    await queue.idle();
    vi.restoreAllMocks();
  });

  it('answers 202 at once and runs the action with the body as its params', async () => {
    const event = delivery({ id: 'msg_first', payload: '{"name":"Webhook","n":1}' });
    const result = await receive(event, lambdaContext());
    expect(result.statusCode).toBe(202);
    expect(jsonBody(result)).toEqual({ accepted: true, id: 'msg_first' });
    // The action runs after the answer, not before it.
    expect(activations()).toHaveLength(0);
    await queue.idle();
    expect(activations()).toEqual([
      expect.objectContaining({ name: 'hello', method: 'POST', params: { name: 'Webhook', n: 1 } }),
    ]);
  });

  it('needs no caller token: the signature is the authentication', async () => {
    const result = await receive(
      delivery({ headers: { authorization: undefined } }),
      lambdaContext(),
    );
    expect(result.statusCode).toBe(202);
  });

  it('runs the action once when the same webhook-id is delivered again', async () => {
    const id = newId();
    const first = await receive(delivery({ id }), lambdaContext());
    await queue.idle();
    // A replay: the same delivery, signed again a moment later, as senders retry.
    const again = await receive(delivery({ id, at: new Date(Date.now() + 1000) }), lambdaContext());
    const concurrent = await Promise.all([
      receive(delivery({ id }), lambdaContext()),
      receive(delivery({ id }), lambdaContext()),
    ]);
    await queue.idle();
    expect([first, again, ...concurrent].map((r) => r.statusCode)).toEqual([202, 202, 202, 202]);
    expect(activations()).toHaveLength(1);
  });

  it('keeps the ids of different webhooks apart', async () => {
    const id = newId();
    await receive(delivery({ id }), lambdaContext());
    await receive(delivery({ id, name: 'failing', secret: OTHER_SECRET }), lambdaContext());
    await queue.idle();
    expect(
      activations()
        .map((a) => a.name)
        .sort(),
    ).toEqual(['fail', 'hello']);
  });

  it('verifies a body API Gateway handed over base64-encoded, on its decoded bytes', async () => {
    const payload = '{"name":"Zoë 🎉"}';
    const result = await receive(delivery({ payload, base64: true }), lambdaContext());
    expect(result.statusCode).toBe(202);
    await queue.idle();
    expect(activations()[0]?.params).toEqual({ name: 'Zoë 🎉' });
  });

  describe('refusals', () => {
    const refused = async (event: ReturnType<typeof delivery>, status: number, code: string) => {
      const result = await receive(event, lambdaContext());
      expect(result.statusCode).toBe(status);
      expect((jsonBody(result) as ErrorBody).error.errorCode).toBe(code);
      await queue.idle();
      expect(emulator.requests).toHaveLength(0);
      return jsonBody(result) as ErrorBody;
    };

    it('refuses a tampered body with 401/200', async () => {
      const event = delivery({ payload: '{"name":"Webhook","amount":1}' });
      event.body = '{"name":"Webhook","amount":9}';
      await refused(event, 401, '200');
    });

    it('refuses a body that is not JSON only after the signature, and with 401 when unsigned', async () => {
      await refused(delivery({ payload: 'not json' }), 400, '100');
      const unsigned = delivery({ payload: 'not json' });
      unsigned.headers['webhook-signature'] = 'v1,AAAA';
      await refused(unsigned, 401, '200');
    });

    it.each([
      ['over 5 minutes old', -(5 * 60 + 30)],
      ['over 5 minutes ahead', 5 * 60 + 30],
    ])('refuses a timestamp %s with 401/200', async (_case, seconds) => {
      const body = await refused(
        delivery({ at: new Date(Date.now() + seconds * 1000) }),
        401,
        '200',
      );
      expect(body.error.details).toMatch(/timestamp/);
    });

    it.each(['webhook-id', 'webhook-timestamp', 'webhook-signature'])(
      'refuses a delivery without %s with 401/200',
      async (header) => {
        await refused(delivery({ headers: { [header]: undefined } }), 401, '200');
      },
    );

    it('refuses a signature made with another secret', async () => {
      await refused(delivery({ secret: OTHER_SECRET }), 401, '200');
    });

    it('refuses a replayed signature for another id', async () => {
      const event = delivery({ id: 'msg_signed' });
      event.headers['webhook-id'] = 'msg_other';
      await refused(event, 401, '200');
    });

    it('answers an unknown webhook as a bad signature (401/200), so that names cannot be probed', async () => {
      const unknown = await receive(delivery({ name: 'nope' }), lambdaContext());
      const bad = await receive(
        delivery({ headers: { 'webhook-signature': 'v1,AAAA' } }),
        lambdaContext(),
      );
      expect([unknown.statusCode, unknown.body]).toEqual([bad.statusCode, bad.body]);
      await refused(delivery({ name: 'nope' }), 401, '200');
    });

    it('answers in XML when the sender asks for it', async () => {
      const result = await receive(
        delivery({ headers: { 'webhook-signature': 'v1,AAAA', accept: 'text/xml' } }),
        lambdaContext(),
      );
      expect(result.statusCode).toBe(401);
      expect(result.body).toContain('<errorCode>200</errorCode>');
    });
  });

  it("parks a delivery whose action ran and failed; the sender's retry runs nothing more", async () => {
    const id = newId();
    const event = () => delivery({ id, name: 'failing', secret: OTHER_SECRET });
    expect((await receive(event(), lambdaContext())).statusCode).toBe(202);
    await queue.idle();
    expect((await receive(event(), lambdaContext())).statusCode).toBe(202);
    await queue.idle();
    // The action ran: its failure is kept for an operator, not repeated on anyone's retry.
    expect(activations().map((a) => a.name)).toEqual(['fail']);
    const logged = logLines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(logged).toContainEqual(
      expect.objectContaining({
        level: 'error',
        action: 'fail',
        outcome: 'failed',
        status: 502,
        settled: 'parked',
      }),
    );
    expect(logged).toContainEqual(
      expect.objectContaining({ action: 'fail', outcome: 'duplicate', of: 'parked' }),
    );
  });

  it('parks a delivery whose action is unknown, logged as such, not as a crash', async () => {
    await receive(delivery({ name: 'orphan', secret: ORPHAN_SECRET }), lambdaContext());
    await queue.idle();
    const logged = logLines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(logged).toContainEqual(
      expect.objectContaining({
        action: 'no-such-action',
        outcome: 'refused',
        reason: 'no action named "no-such-action"',
        settled: 'parked',
      }),
    );
  });

  it('refuses before the 202 a payload nested deeper than the consumer could send on (400/100)', async () => {
    const depth = 100_000;
    const nested = `{"a":${'['.repeat(depth)}${']'.repeat(depth)}}`;
    const result = await receive(delivery({ payload: nested }), lambdaContext());
    expect(result.statusCode).toBe(400);
    expect(jsonBody(result)).toEqual({
      error: {
        errorCode: '100',
        message: 'Bad Request Exception',
        details: [{ path: 'body', issue: 'nested more than 256 levels deep' }],
      },
    });
    await queue.idle();
    expect(activations()).toHaveLength(0);
    // 256 levels are carried and run.
    const deep = `{"a":${'['.repeat(255)}${']'.repeat(255)}}`;
    expect((await receive(delivery({ payload: deep }), lambdaContext())).statusCode).toBe(202);
    await queue.idle();
    expect(activations()).toHaveLength(1);
  });

  it('logs no secret and no signature', async () => {
    const event = delivery();
    await receive(event, lambdaContext());
    await queue.idle();
    const logged = logLines.join('\n');
    expect(logged).not.toContain(SECRET.slice(6));
    expect(logged).not.toContain(event.headers['webhook-signature']!.slice(3));
  });
});

describe('webhook receiver with the DynamoDB delivery ledger (dynalite) and an injected clock', () => {
  const emulator = emulatorForSuite();
  let dynalite: Server;
  let receive: HttpHandler;
  let queue: InProcessInvocationQueue;
  let restoreEnv: () => void;
  const T0 = Date.parse('2026-11-23T12:00:00Z');
  const hello = () => emulator.actions.activations().filter((a) => a.name === 'hello');

  beforeAll(async () => {
    dynalite = await startDynalite();
    const endpoint = `http://127.0.0.1:${(dynalite.address() as AddressInfo).port}`;
    restoreEnv = pointAwsSdkAt('AWS_ENDPOINT_URL_DYNAMODB', endpoint);
    const client = new DynamoDBClient({});
    await createActiveTable(client, tables.createTableInput(tables.deliveryLedger, 'deliveries'));
    client.destroy();
    const file = await secretFile(demoSecretFor(emulator.url));
    ({ receive } = await loadHandlers(
      emulatorEnv(emulator, {
        SECRETS_FILE: file,
        INVOCATION_QUEUE_URL: '',
        DELIVERY_LEDGER_TABLE: 'deliveries',
      }),
      { receive: 'functions/webhooks/receive-local.ts' },
    ));
    const { inProcessInvocationQueueOf } = await import('../../../lib/webhooks/setup.ts');
    const { getRuntime } = await import('../../../lib/runtime.ts');
    queue = inProcessInvocationQueueOf(getRuntime());
  });
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(T0);
  });
  afterEach(async () => {
    await queue.idle();
    vi.useRealTimers();
  });
  afterAll(async () => {
    delete process.env.DELIVERY_LEDGER_TABLE;
    restoreEnv();
    await new Promise((resolve) => dynalite.close(resolve));
  });

  it('runs once a delivery stamped 290 s ahead and replayed 301 s later', async () => {
    const id = newId();
    const stamped = new Date(T0 + 290_000);
    expect((await receive(delivery({ id, at: stamped }), lambdaContext())).statusCode).toBe(202);
    await queue.idle();
    // Past a 5-minute window counted from the first receipt, still inside the signature's.
    vi.setSystemTime(T0 + 301_000);
    expect((await receive(delivery({ id, at: stamped }), lambdaContext())).statusCode).toBe(202);
    await queue.idle();
    // And at the very end of the acceptance window.
    vi.setSystemTime(T0 + 290_000 + 300_000);
    expect((await receive(delivery({ id, at: stamped }), lambdaContext())).statusCode).toBe(202);
    await queue.idle();
    expect(hello()).toHaveLength(1);
  });

  it('runs once however many identical deliveries arrive at the same time', async () => {
    const id = newId();
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => receive(delivery({ id }), lambdaContext())),
    );
    expect(answers.every((answer) => answer.statusCode === 202)).toBe(true);
    await queue.idle();
    expect(hello()).toHaveLength(1);
    // The claim is in the table, not in this process's memory.
    const client = new DynamoDBClient({});
    const item = await client.send(
      new GetItemCommand({ TableName: 'deliveries', Key: { deliveryKey: { S: `demo:${id}` } } }),
    );
    client.destroy();
    expect(item.Item?.state?.S).toBe('done');
  });

  it('runs a different delivery of the same body again', async () => {
    await receive(delivery({ id: newId() }), lambdaContext());
    await receive(delivery({ id: newId() }), lambdaContext());
    await queue.idle();
    expect(hello()).toHaveLength(2);
  });
});

describe('webhook receiver, deployed', () => {
  const own = `whsec_${Buffer.from('this-stage-own-webhook-secret-01').toString('base64')}`;
  const load = async (secret: string) => {
    const env = {
      SECRETS_SOURCE: 'file',
      SECRETS_FILE: await secretFile({ webhooks: { demo: { secret, action: 'hello' } } }),
      // Required when deployed; a refused delivery reaches neither.
      INVOCATION_QUEUE_URL: 'http://127.0.0.1:1/000000000000/invocations.fifo',
      DELIVERY_BODY_BUCKET: 'platform-gateway-dev-bodies',
      AWS_LAMBDA_FUNCTION_NAME: 'platform-gateway-dev-receiveWebhook',
    };
    return (await loadHandlers(env, { receive: 'functions/webhooks/receive.ts' })).receive;
  };
  afterEach(() => {
    delete process.env.AWS_LAMBDA_FUNCTION_NAME;
    delete process.env.INVOCATION_QUEUE_URL;
    delete process.env.DELIVERY_BODY_BUCKET;
    vi.restoreAllMocks();
  });

  it("refuses the demo webhook's secret, dev included: 500/900, the field named, the configuration metric raised", async () => {
    const lines = captureLogLines();
    const receive = await load(SECRET);

    const result = await receive(delivery(), lambdaContext());

    vi.restoreAllMocks();
    expect(result.statusCode).toBe(500);
    expect((jsonBody(result) as ErrorBody).error.errorCode).toBe('900');
    const cause = lines.find((line) => line.includes('the secret cannot be used')) ?? '';
    expect(JSON.parse(cause)).toMatchObject({ Cause: 'secret', ConfigurationErrors: 1 });
    expect(cause).toContain("webhooks.demo.secret: the demo webhook's secret");
    expect(cause).not.toContain(SECRET);
  });

  it("checks a delivery signed with the stage's own secret as usual", async () => {
    const receive = await load(own);
    // Signed with another secret: a 401, so the secret itself was taken.
    const result = await receive(delivery({ secret: OTHER_SECRET }), lambdaContext());
    expect(result.statusCode).toBe(401);
  });
});
