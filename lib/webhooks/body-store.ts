/**
 * Delivery bodies too large for a queue message, kept in S3 (the claim-check pattern): the
 * receiver puts the body and the message carries its key and its SHA-256; the consumer reads it
 * back and runs it only when it matches (lib/webhooks/action.ts). The bucket's policy lets only
 * the receiver put and only the consumer get; its lifecycle rule deletes bodies once no message
 * can refer to them any more.
 *
 * The S3 client is imported on first use (only large deliveries pay for it), with require():
 * Lambda's Node.js runtime provides the AWS SDK, which is left out of the bundles.
 */
import { createHash } from 'node:crypto';
import type { S3Client } from '@aws-sdk/client-s3';
import { deployedSetting } from '../core/deployed-settings.ts';
import { perRuntime } from '../core/per-runtime.ts';
import type { Runtime } from '../runtime.ts';

/** Where a body was put, and the hex SHA-256 of its text: what the message carries instead. */
interface BodyRef {
  readonly bucket: string;
  readonly key: string;
  readonly sha256: string;
}

/** The hex SHA-256 of a body's text (UTF-8), as put and as checked. */
export function bodyDigestOf(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

export interface BodyStore {
  put(deliveryKey: string, text: string): Promise<BodyRef>;
  /** The text stored under `ref`, as it is now: its caller checks it against `ref.sha256`. */
  get(ref: Pick<BodyRef, 'bucket' | 'key'>): Promise<string>;
}

interface S3BodyStoreOptions {
  readonly bucket: string;
  /** For tests; by default one client per container, configured from the environment. */
  readonly client?: S3Client;
  /**
   * Whether the default client names the bucket in the path rather than the host: for an S3
   * stand-in (moto, a loopback server), which every endpoint serves that way.
   */
  readonly pathStyle?: boolean;
}

export function s3BodyStore(options: S3BodyStoreOptions): BodyStore {
  let client = options.client;
  const connect = async () => {
    const sdk = await import('@aws-sdk/client-s3');
    client ??= new sdk.S3Client({
      requestHandler: { connectionTimeout: 1000, requestTimeout: 5000 },
      maxAttempts: 3,
      forcePathStyle: options.pathStyle,
    });
    return { sdk, client };
  };
  return {
    async put(deliveryKey, text) {
      const { sdk, client: s3 } = await connect();
      // A digest of the key: the same delivery always lands on the same object.
      const key = `deliveries/${createHash('sha256').update(deliveryKey).digest('hex')}.json`;
      await s3.send(
        new sdk.PutObjectCommand({
          Bucket: options.bucket,
          Key: key,
          Body: text,
          ContentType: 'application/json',
        }),
      );
      return { bucket: options.bucket, key, sha256: bodyDigestOf(text) };
    },
    async get(ref) {
      const { sdk, client: s3 } = await connect();
      const answer = await s3.send(new sdk.GetObjectCommand({ Bucket: ref.bucket, Key: ref.key }));
      if (!answer.Body) throw new Error('The delivery body is empty');
      return answer.Body.transformToString('utf8');
    },
  };
}

/** The container's body store: required when deployed, absent locally unless a bucket is set. */
export const bodyStoreOf = perRuntime((runtime: Runtime): BodyStore | undefined => {
  const { config } = runtime;
  const bucket = deployedSetting(config, config.deliveryBodyBucket, 'DELIVERY_BODY_BUCKET');
  // Path-style addressing works with every endpoint (moto, a loopback stand-in) and AWS.
  return bucket ? s3BodyStore({ bucket, pathStyle: Boolean(config.aws.s3Endpoint) }) : undefined;
});
