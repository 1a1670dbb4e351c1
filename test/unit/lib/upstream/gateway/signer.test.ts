import { describe, expect, it } from 'vitest';
import { signV2, stringToSign } from '../../../../../lib/upstream/gateway/signer.ts';
import golden from '../../../../fixtures/signer/vectors.json' with { type: 'json' };

describe('signV2', () => {
  describe.each(golden.vectors)('golden vector: $name', (vector) => {
    const credentials = {
      accessKey: ('accessKey' in vector ? vector.accessKey : undefined) ?? golden.accessKey,
      secretKey: ('secretKey' in vector ? vector.secretKey : undefined) ?? golden.secretKey,
    };
    const signed = signV2({
      method: vector.method,
      uri: vector.uri,
      timestampMs: golden.timestampMs,
      credentials,
    });

    it('builds the string to sign', () => {
      expect(signed.stringToSign).toBe(vector.stringToSign);
    });

    it('produces the expected signature', () => {
      expect(signed.signature).toBe(vector.expected);
    });
  });

  it('uses the timestamp as a decimal string of whole milliseconds', () => {
    const signed = signV2({
      method: 'GET',
      uri: '/x',
      timestampMs: 1700000000000.9,
      credentials: { accessKey: 'a', secretKey: 'b' },
    });
    expect(signed.timestamp).toBe('1700000000000');
    expect(signed.stringToSign).toBe('GET /x\n1700000000000\na');
  });

  it('has no trailing newline', () => {
    expect(stringToSign('GET', '/a', '1', 'k').endsWith('k')).toBe(true);
  });

  it('refuses a URI that is not an absolute path (a full URL would sign the host)', () => {
    expect(() =>
      signV2({
        method: 'GET',
        uri: 'https://host/api',
        timestampMs: 1,
        credentials: { accessKey: 'a', secretKey: 'b' },
      }),
    ).toThrow(TypeError);
  });
});
