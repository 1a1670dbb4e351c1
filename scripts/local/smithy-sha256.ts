/**
 * node:crypto behind the hash interface @smithy/signature-v4 takes (`sha256`): the S3 stand-in
 * verifies presigned URLs with it, and the tests of lib/secrets/sign-v4.ts sign with it to
 * compare. (The AWS SDK's own, @aws-crypto/sha256-js, is not a dependency of this package.)
 */
import { createHash, createHmac } from 'node:crypto';

type SourceData = string | ArrayBuffer | ArrayBufferView;

export class Sha256 {
  private readonly hash;
  constructor(secret?: SourceData) {
    this.hash = secret === undefined ? createHash('sha256') : createHmac('sha256', bytes(secret));
  }
  update(data: SourceData) {
    this.hash.update(bytes(data));
  }
  async digest() {
    return new Uint8Array(this.hash.digest());
  }
}

function bytes(data: SourceData): Buffer {
  if (typeof data === 'string') return Buffer.from(data, 'utf8');
  if (ArrayBuffer.isView(data)) return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  return Buffer.from(data);
}
