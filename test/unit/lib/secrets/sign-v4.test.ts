/**
 * Signature Version 4 (lib/secrets/sign-v4.ts): AWS's published example, and the signature the
 * `aws4` library gives the same request, for any body, path, region, headers and credentials.
 */
import aws4 from 'aws4';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { signV4 } from '../../../../lib/secrets/sign-v4.js';

// AWS's Signature Version 4 test suite, "get-vanilla" (its published credentials and time).
const EXAMPLE_CREDENTIALS = {
  accessKeyId: 'AKIDEXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
};
const EXAMPLE_TIME = new Date('2015-08-30T12:36:00Z');

describe('signV4', () => {
  it("gives AWS's published example its published signature", () => {
    const headers = signV4(
      {
        method: 'GET',
        host: 'example.amazonaws.com',
        path: '/',
        service: 'service',
        region: 'us-east-1',
        body: '',
        headers: {},
      },
      EXAMPLE_CREDENTIALS,
      EXAMPLE_TIME,
    );
    expect(headers).toEqual({
      host: 'example.amazonaws.com',
      'x-amz-date': '20150830T123600Z',
      authorization:
        'AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=host;x-amz-date, Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31',
    });
  });

  it('signs a temporary credential with its session token, and sends the token', () => {
    const request = {
      method: 'POST',
      host: 'secretsmanager.eu-west-1.amazonaws.com',
      path: '/',
      service: 'secretsmanager',
      region: 'eu-west-1',
      body: '{"SecretId":"s"}',
      headers: { 'x-amz-target': 'secretsmanager.GetSecretValue' },
    };
    const headers = signV4(request, { ...EXAMPLE_CREDENTIALS, sessionToken: 'TOKEN' });
    expect(headers['x-amz-security-token']).toBe('TOKEN');
    expect(headers.authorization).toContain(
      'SignedHeaders=host;x-amz-date;x-amz-security-token;x-amz-target,',
    );
  });

  it('gives the signature aws4 gives the same request', () => {
    // A path as a URL's pathname gives it: encoded once, `.` and `..` resolved.
    const segment = fc
      .string({ maxLength: 8 })
      .map((text) => new URL(`https://h.example/${text.replace(/[/?#\\]/g, '')}`).pathname.slice(1))
      // aws4 re-encodes a path with characters a URL leaves as they are (`[`, `]`, `|`, ...) and
      // signs the path it would then send; signV4 signs the path as given.
      .filter((text) => text !== '.' && text !== '..' && /^[\w;,:@&=+$.!~*'()%-]*$/.test(text));
    fc.assert(
      fc.property(
        fc.array(segment, { maxLength: 3 }).map((segments) => `/${segments.join('/')}`),
        fc.string({ maxLength: 40 }),
        fc.constantFrom('us-east-1', 'eu-west-1', 'ap-northeast-2'),
        fc.constantFrom('secretsmanager', 'dynamodb', 'events'),
        fc.option(fc.stringMatching(/^[A-Za-z0-9+/=]{8,40}$/), { nil: undefined }),
        fc.date({ min: new Date('2020-01-01'), max: new Date('2040-01-01'), noInvalidDate: true }),
        fc.stringMatching(/^[ -~]{0,30}$/),
        (path, body, region, service, sessionToken, at, target) => {
          const now = new Date(Math.floor(at.getTime() / 1000) * 1000);
          const amzDate = now.toISOString().replace(/[:-]|\.\d{3}/g, '');
          const credentials = { ...EXAMPLE_CREDENTIALS, sessionToken };
          const given = {
            'content-type': 'application/x-amz-json-1.1',
            'x-amz-target': target,
            'content-length': String(Buffer.byteLength(body)),
          };
          const ours = signV4(
            { method: 'POST', host: 'h.example', path, service, region, body, headers: given },
            credentials,
            now,
          );
          const theirs = aws4.sign(
            {
              host: 'h.example',
              path,
              method: 'POST',
              service,
              region,
              body,
              headers: { ...given, 'x-amz-date': amzDate },
            },
            credentials,
          );
          expect(ours.authorization).toBe(theirs.headers?.Authorization);
        },
      ),
      { numRuns: 300 },
    );
  });
});
