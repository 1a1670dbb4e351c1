import { describe, expect, it } from 'vitest';
import { signatureV2, stringToSign, verifySignatureV2 } from '../../../../emulator/index.ts';
import { sign } from '../helpers.ts';

// Vectors computed here, cross-checked with `openssl dgst -sha256 -hmac`.
const ACCESS_KEY = 'TESTACCESSKEY0000001';
const SECRET_KEY = 'TESTSECRETKEY000000000000000000000000001';
const TIMESTAMP = '1700000000000';

const GOLDEN_VECTORS = [
  {
    method: 'GET',
    uri: '/api/v1/jobs?page=1&limit=10',
    signature: 'tI0rApDF6tIj6sZ8L/wayzzXL171Bqmj9yZYC/U02eE=',
  },
  {
    method: 'GET',
    uri: '/api/v1/jobs?limit=10&page=1',
    signature: 'vX2fYPSq6QRSILYOI1q0pvEvfMhzAPAmx5H9PrfOhwM=',
  },
  {
    method: 'POST',
    uri: '/api/v1/jobs/search',
    signature: 'UsC8Q0yUlguj/Bbr/57SyFPIH9GmUnm3UUL7oWAhBv8=',
  },
  {
    method: 'PATCH',
    uri: '/api/v1/jobs/12345/cancel',
    signature: '0u436VElndCZuFkf6QcSaRl5hxVOsRvLsDQNySH+Qmw=',
  },
  {
    method: 'GET',
    uri: '/api/v1/jobs/12345/report',
    signature: 'S3b2gdH9IdTN3ajvkfCZFwE2zNJxEFmKzS1VMbMjBiQ=',
  },
] as const;

describe('signature v2', () => {
  it('builds the string to sign as METHOD space URI, timestamp, access key, with no trailing newline', () => {
    const text = stringToSign({
      method: 'GET',
      uri: '/api/v1/jobs?page=1',
      timestamp: TIMESTAMP,
      accessKey: ACCESS_KEY,
    });

    expect(text).toBe(`GET /api/v1/jobs?page=1\n${TIMESTAMP}\n${ACCESS_KEY}`);
  });

  describe.each(GOLDEN_VECTORS)('golden vector $method $uri', ({ method, uri, signature }) => {
    const parts = { method, uri, timestamp: TIMESTAMP, accessKey: ACCESS_KEY };

    it('signs to the published value', () => {
      expect(signatureV2(parts, SECRET_KEY)).toBe(signature);
    });

    it('verifies the published value', () => {
      expect(verifySignatureV2(parts, SECRET_KEY, signature)).toBe(true);
    });

    it("agrees with the tests' own signer", () => {
      expect(sign(method, uri, TIMESTAMP, ACCESS_KEY, SECRET_KEY)).toBe(signature);
    });
  });

  it('refuses a signature of the same query with its parameters in another order', () => {
    const [inOrder, reordered] = GOLDEN_VECTORS;
    const parts = {
      method: inOrder.method,
      uri: inOrder.uri,
      timestamp: TIMESTAMP,
      accessKey: ACCESS_KEY,
    };

    expect(verifySignatureV2(parts, SECRET_KEY, reordered.signature)).toBe(false);
  });

  it('refuses a signature made with another secret, timestamp, access key or method', () => {
    const parts = {
      method: 'GET',
      uri: '/api/v1/jobs/12345/report',
      timestamp: TIMESTAMP,
      accessKey: ACCESS_KEY,
    };
    const good = signatureV2(parts, SECRET_KEY);

    expect(verifySignatureV2(parts, `${SECRET_KEY}x`, good)).toBe(false);
    expect(verifySignatureV2({ ...parts, timestamp: '1700000000001' }, SECRET_KEY, good)).toBe(
      false,
    );
    expect(verifySignatureV2({ ...parts, accessKey: 'OTHERKEY' }, SECRET_KEY, good)).toBe(false);
    expect(verifySignatureV2({ ...parts, method: 'PATCH' }, SECRET_KEY, good)).toBe(false);
  });

  it('refuses an empty or truncated signature without throwing', () => {
    const parts = {
      method: 'GET',
      uri: '/api/v1/jobs',
      timestamp: TIMESTAMP,
      accessKey: ACCESS_KEY,
    };
    const good = signatureV2(parts, SECRET_KEY);

    expect(verifySignatureV2(parts, SECRET_KEY, '')).toBe(false);
    expect(verifySignatureV2(parts, SECRET_KEY, good.slice(0, -2))).toBe(false);
  });

  it('hashes a non-ASCII secret and URI as UTF-8', () => {
    const parts = {
      method: 'GET',
      uri: '/api/v1/jobs?memo=%EC%A3%BC',
      timestamp: TIMESTAMP,
      accessKey: ACCESS_KEY,
    };

    expect(signatureV2(parts, '비밀')).toBe(sign('GET', parts.uri, TIMESTAMP, ACCESS_KEY, '비밀'));
  });
});
