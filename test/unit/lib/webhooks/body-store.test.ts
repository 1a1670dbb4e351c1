/**
 * Delivery bodies in S3: the real S3 client against a loopback stand-in that keeps what is put.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../../lib/core/config.ts';
import { createLogger } from '../../../../lib/core/log.ts';
import { createRuntime } from '../../../../lib/runtime.ts';
import { bodyStoreOf, s3BodyStore } from '../../../../lib/webhooks/body-store.ts';
import { pointAwsSdkAt } from '../../../helpers/aws.ts';
import { type S3StandIn, startS3StandIn } from './s3-stand-in.ts';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('s3BodyStore', () => {
  let s3: S3StandIn;
  beforeAll(async () => {
    s3 = await startS3StandIn();
  });
  afterAll(() => s3.close());

  it('puts a body under a digest of its delivery key, as JSON, and the message carries where', async () => {
    const store = s3BodyStore({ bucket: 'delivery-bodies', client: s3.client() });
    const text = JSON.stringify({ big: 'x'.repeat(300 * 1024), word: '한글' });
    const ref = await store.put('demo:msg_2KWPBgLlAfxdpx2AI54pPJ85f4W', text);
    expect(ref).toEqual({
      bucket: 'delivery-bodies',
      key: `deliveries/${sha256('demo:msg_2KWPBgLlAfxdpx2AI54pPJ85f4W')}.json`,
      // What the consumer checks the body against before it runs anything.
      sha256: sha256(text),
    });
    const stored = s3.objects.get(`/delivery-bodies/${ref.key}`);
    expect(stored?.contentType).toBe('application/json');
    expect(stored?.body.toString('utf8')).toBe(text);
  });

  it('puts the same delivery on the same object, whatever copy of it comes', async () => {
    const store = s3BodyStore({ bucket: 'b', client: s3.client() });
    const first = await store.put('demo:msg_same', '{"n":1}');
    const again = await store.put('demo:msg_same', '{"n":1}');
    const other = await store.put('demo:msg_other', '{"n":1}');
    expect(again).toEqual(first);
    expect(other.key).not.toBe(first.key);
    // A key never carries the delivery's own id, which may hold any character.
    expect(first.key).toMatch(/^deliveries\/[0-9a-f]{64}\.json$/);
  });

  it('gets a body back as it was put', async () => {
    const store = s3BodyStore({ bucket: 'b', client: s3.client() });
    const text = '{"params":{"text":"안녕하세요"}}';
    expect(await store.get(await store.put('demo:msg_get', text))).toBe(text);
  });

  it('fails to get a body that is not there', async () => {
    const store = s3BodyStore({ bucket: 'b', client: s3.client() });
    await expect(store.get({ bucket: 'b', key: 'deliveries/none.json' })).rejects.toMatchObject({
      name: 'NoSuchKey',
    });
  });
});

describe('bodyStoreOf', () => {
  const quiet = createLogger({}, () => {});
  const runtimeOf = (env: Record<string, string>) =>
    createRuntime(loadConfig({ SECRETS_SOURCE: 'file', ...env }), { log: quiet });

  it('has no body store locally unless a bucket is set', () => {
    expect(bodyStoreOf(runtimeOf({}))).toBeUndefined();
    const local = runtimeOf({ DELIVERY_BODY_BUCKET: 'local-bodies' });
    expect(bodyStoreOf(local)).toBeDefined();
    expect(bodyStoreOf(local)).toBe(bodyStoreOf(local));
  });

  it('names the bucket in the path where S3 is a stand-in (AWS_ENDPOINT_URL_S3)', async () => {
    const s3 = await startS3StandIn();
    // By name: at an IP address the client would name the bucket in the path anyway.
    const endpoint = s3.endpoint.replace('127.0.0.1', 'localhost');
    const restore = pointAwsSdkAt('AWS_ENDPOINT_URL_S3', endpoint);
    try {
      const store = bodyStoreOf(
        runtimeOf({ DELIVERY_BODY_BUCKET: 'local-bodies', AWS_ENDPOINT_URL_S3: endpoint }),
      );
      const ref = await store?.put('demo:msg_local', '{"n":1}');
      expect(s3.objects.has(`/local-bodies/${ref?.key}`)).toBe(true);
    } finally {
      restore();
      await s3.close();
    }
  });
});
