import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../../lib/core/config.ts';
import { ServiceError } from '../../../../lib/core/errors.ts';
import { encodeError } from '../../../../lib/http/envelope.ts';
import { createRuntime } from '../../../../lib/runtime.ts';
import type { SecretSource } from '../../../../lib/secrets/sources.ts';
import { parseSecret } from '../../../../lib/secrets/store.ts';
import {
  boundedWebhooks,
  type CheckedDelivery,
  checkDelivery,
  deliveryKey,
  invocationOf,
  keysFor,
  type WebhookDirectory,
  webhookDirectoryOf,
} from '../../../../lib/webhooks/verify.ts';

const SECRET = `whsec_${Buffer.from('unit-test-webhook-secret-000001').toString('base64')}`;
const entry = { secret: SECRET, action: 'hello' };
const signer = new Webhook(SECRET);

function signed(payload: string, id = 'msg_1', at = new Date()) {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signer.sign(id, at, payload),
  };
}

describe('deliveryKey', () => {
  it('is the webhook and the id when SQS accepts it as a deduplication id', () => {
    expect(deliveryKey('demo', 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W')).toBe(
      'demo:msg_2KWPBgLlAfxdpx2AI54pPJ85f4W',
    );
  });

  it('is a SHA-256 for ids SQS would refuse, and still tells webhooks apart', () => {
    const long = deliveryKey('demo', 'x'.repeat(200));
    expect(long).toMatch(/^[0-9a-f]{64}$/);
    expect(deliveryKey('demo', 'id with spaces')).toMatch(/^[0-9a-f]{64}$/);
    expect(deliveryKey('a', 'x'.repeat(200))).not.toBe(long);
  });
});

/** A whsec_ secret of `bytes` bytes, distinct per seed. */
const secretOf = (seed: string, bytes = 32) =>
  `whsec_${Buffer.alloc(bytes, seed).toString('base64')}`;
const OLD = secretOf('o');
const NEW = secretOf('n');
const OTHER = secretOf('x');

/** A directory over these webhooks, counting its loads. */
function directory(
  webhooks: Record<string, unknown>,
  maxBodyBytes = 1024 * 1024,
): WebhookDirectory & { loads: number } {
  // Through the secret's own parser, as a fetched secret comes.
  const parsed = parseSecret(JSON.stringify({ webhooks })).webhooks ?? {};
  const result = {
    loads: 0,
    maxBodyBytes,
    load: async () => {
      result.loads++;
      return parsed;
    },
  };
  return result;
}

function delivery(secret: string, payload = '{"n":1}', id = 'msg_1', at = new Date()) {
  return {
    bytes: Buffer.from(payload),
    headers: {
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': new Webhook(secret).sign(id, at, payload),
    },
  };
}

async function rejection(promise: Promise<unknown>): Promise<ServiceError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof ServiceError)) throw new Error(`expected a ServiceError, got ${error}`);
  return error;
}

/** One webhook, `demo`, with `entry`: the signature and body rules through checkDelivery. */
const verifyDelivery = (bytes: Buffer, headers: Record<string, string>) =>
  checkDelivery(directory({ demo: entry }), 'demo', bytes, headers, Date.now());

describe('checkDelivery: the signature and the body', () => {
  it('accepts a delivery signed by the library and returns its JSON object', async () => {
    const payload = '{"type":"ping","data":{"n":1}}';
    const delivery = await verifyDelivery(Buffer.from(payload), signed(payload, 'msg_ok'));
    expect(delivery).toMatchObject({
      id: 'msg_ok',
      timestamp: expect.any(Number),
      payload: { type: 'ping', data: { n: 1 } },
    });
  });

  it('accepts one valid signature among several (key rotation)', async () => {
    const payload = '{"a":1}';
    const headers = signed(payload);
    const other = new Webhook(
      `whsec_${Buffer.from('another-secret-of-24-bytes').toString('base64')}`,
    );
    headers['webhook-signature'] =
      `${other.sign('msg_1', new Date(), payload)} ${headers['webhook-signature']}`;
    expect((await verifyDelivery(Buffer.from(payload), headers)).id).toBe('msg_1');
  });

  it.each([
    ['a tampered body', (h: Record<string, string>) => h, '{"a":2}'],
    ['another id', (h: Record<string, string>) => ({ ...h, 'webhook-id': 'msg_2' }), '{"a":1}'],
    [
      'another timestamp',
      (h: Record<string, string>) => ({
        ...h,
        'webhook-timestamp': String(Number(h['webhook-timestamp']) + 1),
      }),
      '{"a":1}',
    ],
    ['no signature', (h: Record<string, string>) => ({ ...h, 'webhook-signature': '' }), '{"a":1}'],
    ['no id', ({ 'webhook-id': _id, ...rest }: Record<string, string>) => rest, '{"a":1}'],
    [
      'a v2 signature only',
      (h: Record<string, string>) => ({
        ...h,
        'webhook-signature': h['webhook-signature']!.replace('v1,', 'v2,'),
      }),
      '{"a":1}',
    ],
    [
      'a timestamp that is not whole seconds',
      (h: Record<string, string>) => ({
        ...h,
        'webhook-timestamp': `${h['webhook-timestamp']}abc`,
      }),
      '{"a":1}',
    ],
  ])('refuses %s with 401/200', async (_case, change, body) => {
    const headers = change(signed('{"a":1}'));
    const error = await rejection(verifyDelivery(Buffer.from(body), headers));
    expect([error.status, error.code, error.message]).toEqual([
      401,
      '200',
      'Authentication Failed',
    ]);
  });

  it.each([
    ['over 5 minutes old', -(5 * 60 + 5) * 1000],
    ['over 5 minutes ahead', (5 * 60 + 5) * 1000],
  ])('refuses a timestamp %s', async (_case, offsetMs) => {
    const payload = '{"a":1}';
    const headers = signed(payload, 'msg_1', new Date(Date.now() + offsetMs));
    const error = await rejection(verifyDelivery(Buffer.from(payload), headers));
    expect(error.status).toBe(401);
    expect(String(error.details)).toMatch(/timestamp too (old|new)/);
  });

  it('accepts a timestamp well inside the window', async () => {
    const payload = '{"a":1}';
    const headers = signed(payload, 'msg_1', new Date(Date.now() - 4 * 60 * 1000));
    expect((await verifyDelivery(Buffer.from(payload), headers)).id).toBe('msg_1');
  });

  it.each([
    ['an empty body', ''],
    ['malformed JSON', '{"a":'],
    ['a JSON array', '[1]'],
  ])('refuses %s, correctly signed, with 400/100', async (_case, payload) => {
    const error = await rejection(verifyDelivery(Buffer.from(payload), signed(payload)));
    expect([error.status, error.code]).toEqual([400, '100']);
  });
});

describe('checkDelivery', () => {
  const webhooks = () =>
    directory({
      rotating: { secrets: [OLD, NEW], action: 'hello', ordered: true },
      plain: { secret: OTHER, action: 'echo' },
    });

  it('accepts a delivery signed by the library, with its action and once-only key', async () => {
    const { bytes, headers } = delivery(OTHER, '{"type":"ping"}', 'msg_ok');
    const checked = await checkDelivery(webhooks(), 'plain', bytes, headers, Date.now());
    expect(checked).toEqual({
      webhook: 'plain',
      action: 'echo',
      ordered: false,
      id: 'msg_ok',
      timestamp: Number(headers['webhook-timestamp']),
      payload: { type: 'ping' },
      key: 'plain:msg_ok',
    });
  });

  it("accepts a delivery signed with any of a webhook's secrets (rotation with no gap)", async () => {
    for (const secret of [OLD, NEW]) {
      const { bytes, headers } = delivery(secret);
      expect((await checkDelivery(webhooks(), 'rotating', bytes, headers, Date.now())).action).toBe(
        'hello',
      );
    }
    // A sender that signs with both during its own switch.
    const old = delivery(OLD);
    const both = delivery(NEW);
    old.headers['webhook-signature'] += ` ${both.headers['webhook-signature']}`;
    expect(
      (await checkDelivery(webhooks(), 'rotating', old.bytes, old.headers, Date.now())).id,
    ).toBe('msg_1');
  });

  it("refuses a delivery signed with another webhook's secret", async () => {
    const { bytes, headers } = delivery(OTHER);
    const error = await rejection(
      checkDelivery(webhooks(), 'rotating', bytes, headers, Date.now()),
    );
    expect([error.status, error.code, error.details]).toEqual([
      401,
      '200',
      'No matching signature found',
    ]);
  });

  it('answers an unknown name exactly as a bad signature, having checked as many keys', async () => {
    const dir = webhooks();
    const { bytes, headers } = delivery(OTHER);
    const unknown = await rejection(checkDelivery(dir, 'nobody', bytes, headers, Date.now()));
    const badSignature = await rejection(
      checkDelivery(dir, 'rotating', bytes, headers, Date.now()),
    );
    expect(encodeError(unknown, 'json')).toEqual(encodeError(badSignature, 'json'));
    expect(encodeError(unknown, 'xml')).toEqual(encodeError(badSignature, 'xml'));
    // Names the prototype holds are unknown too.
    for (const name of ['constructor', '__proto__', 'hasOwnProperty']) {
      const error = await rejection(checkDelivery(dir, name, bytes, headers, Date.now()));
      expect(encodeError(error, 'json')).toEqual(encodeError(badSignature, 'json'));
    }
    // The same number of HMACs for any name: the most secrets a webhook holds (2 here), with
    // keys of no webhook for an unknown name or a webhook with fewer.
    const all = await dir.load();
    const keys = (name: string) => keysFor(all, Object.hasOwn(all, name) ? all[name] : undefined);
    expect(keys('rotating')).toHaveLength(2);
    expect(keys('plain')).toHaveLength(2);
    expect(keys('nobody')).toHaveLength(2);
    const webhookKeys = [OLD, NEW, OTHER].map((s) =>
      Buffer.from(s.slice(6), 'base64').toString('hex'),
    );
    for (const key of keys('nobody')) expect(webhookKeys).not.toContain(key.toString('hex'));
  });

  it.each([
    ['no signature headers', (h: Record<string, string>) => ({ ...h, 'webhook-signature': '' })],
    [
      'a timestamp 6 minutes old',
      (h: Record<string, string>) => ({
        ...h,
        'webhook-timestamp': String(Number(h['webhook-timestamp']) - 360),
      }),
    ],
    [
      'a timestamp that is not seconds',
      (h: Record<string, string>) => ({ ...h, 'webhook-timestamp': '1.5' }),
    ],
  ])(
    'refuses %s with 401/200 before it reads the webhooks, whatever the name',
    async (_case, change) => {
      for (const name of ['plain', 'nobody']) {
        const dir = webhooks();
        const { bytes, headers } = delivery(OTHER);
        const error = await rejection(checkDelivery(dir, name, bytes, change(headers), Date.now()));
        expect([error.status, error.code]).toEqual([401, '200']);
        expect(dir.loads).toBe(0);
      }
    },
  );

  it('refuses a body over the limit with 413/430 before it reads the webhooks', async () => {
    const dir = directory({ plain: { secret: OTHER, action: 'echo' } }, 16);
    const { bytes, headers } = delivery(OTHER, '{"text":"seventeen+"}');
    const error = await rejection(checkDelivery(dir, 'plain', bytes, headers, Date.now()));
    expect([error.status, error.code]).toEqual([413, '430']);
    expect(dir.loads).toBe(0);
    const small = delivery(OTHER, '{"a":1}');
    expect((await checkDelivery(dir, 'plain', small.bytes, small.headers, Date.now())).id).toBe(
      'msg_1',
    );
  });

  it('checks the timestamp against the clock it is given', async () => {
    const at = new Date('2026-01-01T00:00:00Z');
    const { bytes, headers } = delivery(OTHER, '{"a":1}', 'msg_1', at);
    const now = at.getTime() + 299_000;
    expect((await checkDelivery(webhooks(), 'plain', bytes, headers, now)).id).toBe('msg_1');
    const late = await rejection(checkDelivery(webhooks(), 'plain', bytes, headers, now + 2000));
    expect(late.details).toBe('Message timestamp too old');
    const early = await rejection(
      checkDelivery(webhooks(), 'plain', bytes, headers, at.getTime() - 302_000),
    );
    expect(early.details).toBe('Message timestamp too new');
  });

  it('hands a checked delivery to the queue with its key, one group per delivery unless ordered', () => {
    const checked: CheckedDelivery = {
      webhook: 'w',
      action: 'hello',
      ordered: false,
      id: 'msg_1',
      timestamp: 1,
      payload: { a: 1 },
      key: 'w:msg_1',
    };
    expect(invocationOf(checked)).toEqual({
      invocation: {
        action: 'hello',
        params: { a: 1 },
        source: { webhook: 'w', id: 'msg_1', key: 'w:msg_1', timestamp: 1 },
      },
      options: { deduplicationId: 'w:msg_1', groupId: 'w:msg_1' },
    });
    expect(invocationOf({ ...checked, ordered: true }).options.groupId).toBe('w');
  });
});

describe('boundedWebhooks', () => {
  it('serves a stale copy only until the bound, then refuses with 503 and Retry-After', async () => {
    let now = 1_000_000;
    const fetchedAt = now;
    const webhooks = boundedWebhooks({
      load: async () => ({
        value: { webhooks: { plain: { secret: OTHER, action: 'echo' } } },
        fetchedAt,
      }),
      maxAgeMs: 600_000,
      retryInMs: () => 12_500,
      now: () => now,
      maxBodyBytes: 10,
    });
    now += 600_000;
    expect(Object.keys(await webhooks.load())).toEqual(['plain']);
    now += 1;
    const error = await rejection(webhooks.load());
    expect([error.status, error.code, error.headers['Retry-After']]).toEqual([503, '500', '13']);
    expect(JSON.stringify(encodeError(error, 'json'))).not.toContain(OTHER.slice(6));
  });
});

describe("the container's webhooks (a real secret store)", () => {
  it('refuses deliveries with 503 once the secret is TTL + CALLERS_MAX_STALE_SECONDS old and cannot be refreshed', async () => {
    let now = Date.parse('2026-06-01T00:00:00Z');
    let broken = false;
    const source: SecretSource = {
      description: 'test source',
      fetchText: async () => {
        if (broken) throw new Error('Secrets Manager unavailable');
        return JSON.stringify({ webhooks: { plain: { secret: OTHER, action: 'echo' } } });
      },
    };
    const config = loadConfig({
      SECRETS_TTL_SECONDS: '300',
      CALLERS_MAX_STALE_SECONDS: '60',
      WEBHOOK_MAX_BODY_BYTES: '2048',
    });
    const webhooks = webhookDirectoryOf(
      createRuntime(config, { secretSource: source, now: () => now }),
    );
    expect(webhooks.maxBodyBytes).toBe(2048);
    const send = () => {
      const { bytes, headers } = delivery(OTHER, '{"a":1}', 'msg_1', new Date(now));
      return checkDelivery(webhooks, 'plain', bytes, headers, now);
    };
    expect((await send()).action).toBe('echo');
    broken = true;
    now += 360_000;
    expect((await send()).action).toBe('echo');
    now += 1_000;
    const error = await rejection(send());
    expect([error.status, error.code, error.details]).toEqual([
      503,
      '500',
      'The webhooks could not be refreshed; try again later.',
    ]);
    broken = false;
    now += 60_000;
    expect((await send()).action).toBe('echo');
  });

  it('verifies a body of up to 1 MiB by default', () => {
    expect(loadConfig({}).webhookMaxBodyBytes).toBe(1024 * 1024);
  });
});
