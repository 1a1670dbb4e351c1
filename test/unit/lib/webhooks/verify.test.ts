import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { deliveryKey, verifyDelivery, webhookEntry } from '../../../../lib/webhooks/verify.js';
import { thrownServiceError as refusal } from '../../../helpers/service-error.js';

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

describe('verifyDelivery', () => {
  it('accepts a delivery signed by the library and returns its JSON object', () => {
    const payload = '{"type":"ping","data":{"n":1}}';
    const delivery = verifyDelivery(entry, Buffer.from(payload), signed(payload, 'msg_ok'));
    expect(delivery).toEqual({
      id: 'msg_ok',
      timestamp: expect.any(Number),
      payload: { type: 'ping', data: { n: 1 } },
    });
  });

  it('accepts one valid signature among several (key rotation)', () => {
    const payload = '{"a":1}';
    const headers = signed(payload);
    const other = new Webhook(`whsec_${Buffer.from('another-secret').toString('base64')}`);
    headers['webhook-signature'] =
      `${other.sign('msg_1', new Date(), payload)} ${headers['webhook-signature']}`;
    expect(verifyDelivery(entry, Buffer.from(payload), headers).id).toBe('msg_1');
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
  ])('refuses %s with 401/200', (_case, change, body) => {
    const headers = change(signed('{"a":1}'));
    const error = refusal(() => verifyDelivery(entry, Buffer.from(body), headers));
    expect([error.status, error.code, error.message]).toEqual([
      401,
      '200',
      'Authentication Failed',
    ]);
  });

  it.each([
    ['over 5 minutes old', -(5 * 60 + 5) * 1000],
    ['over 5 minutes ahead', (5 * 60 + 5) * 1000],
  ])('refuses a timestamp %s', (_case, offsetMs) => {
    const payload = '{"a":1}';
    const headers = signed(payload, 'msg_1', new Date(Date.now() + offsetMs));
    const error = refusal(() => verifyDelivery(entry, Buffer.from(payload), headers));
    expect(error.status).toBe(401);
    expect(String(error.details)).toMatch(/timestamp too (old|new)/);
  });

  it('accepts a timestamp well inside the window', () => {
    const payload = '{"a":1}';
    const headers = signed(payload, 'msg_1', new Date(Date.now() - 4 * 60 * 1000));
    expect(verifyDelivery(entry, Buffer.from(payload), headers).id).toBe('msg_1');
  });

  it.each([
    ['an empty body', ''],
    ['malformed JSON', '{"a":'],
    ['a JSON array', '[1]'],
  ])('refuses %s, correctly signed, with 400/100', (_case, payload) => {
    const error = refusal(() => verifyDelivery(entry, Buffer.from(payload), signed(payload)));
    expect([error.status, error.code]).toEqual([400, '100']);
  });
});

describe('webhookEntry', () => {
  it('answers 404/300 for an unknown name, inherited names included', () => {
    const secret = { webhooks: { demo: entry } };
    expect(webhookEntry(secret, 'demo')).toBe(entry);
    for (const name of ['other', 'constructor']) {
      const error = refusal(() => webhookEntry(secret, name));
      expect([error.status, error.code]).toEqual([404, '300']);
    }
    expect(refusal(() => webhookEntry({}, 'demo')).status).toBe(404);
  });
});

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
