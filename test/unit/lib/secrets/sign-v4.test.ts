/**
 * Signature Version 4 (lib/secrets/sign-v4.ts): AWS's published example, and the signatures the
 * `aws4` library and AWS's own signer (`@smithy/signature-v4`) give the same request, for any
 * body, path, query, region, headers and credentials: a JSON API's request, S3's multipart
 * calls and S3's presigned URLs.
 */
import { createHash } from 'node:crypto';
import { SignatureV4 } from '@smithy/signature-v4';
import aws4 from 'aws4';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalQuery, presignS3, signS3, signV4 } from '../../../../lib/secrets/sign-v4.ts';
import { Sha256 } from '../../../../scripts/local/smithy-sha256.ts';

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

/** An S3 key as the hand-off makes them: a function's prefix, then letters, digits, `-_.`. */
const s3Key = fc
  .array(fc.stringMatching(/^[A-Za-z0-9._-]{1,12}$/), { minLength: 1, maxLength: 3 })
  .map((segments) => segments.join('/'));
/** Any query value: text, spaces, slashes, `=` and `&`, non-ASCII. */
const queryValue = fc.string({ maxLength: 20, unit: 'grapheme' });
const signingTime = fc
  .date({ min: new Date('2020-01-01'), max: new Date('2040-01-01'), noInvalidDate: true })
  .map((at) => new Date(Math.floor(at.getTime() / 1000) * 1000));
const sessionToken = fc.option(fc.stringMatching(/^[A-Za-z0-9+/=]{8,40}$/), { nil: undefined });

describe('signS3', () => {
  it("signs a multipart call (its query, its payload hash) as aws4 and AWS's own signer do", async () => {
    await fc.assert(
      fc.asyncProperty(
        s3Key,
        // Names once each, as the hand-off's calls send them: aws4 signs only the first value of
        // a name S3 is sent twice, where AWS's own signer signs them all.
        fc.uniqueArray(fc.tuple(fc.stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,10}$/), queryValue), {
          maxLength: 3,
          selector: ([name]) => name,
        }),
        fc.constantFrom('PUT', 'POST', 'DELETE'),
        fc.constantFrom('us-east-1', 'eu-west-1', 'ap-northeast-2'),
        sessionToken,
        signingTime,
        fc.uint8Array({ maxLength: 64 }),
        async (key, query, method, region, token, now, payload) => {
          const credentials = { ...EXAMPLE_CREDENTIALS, sessionToken: token };
          const payloadHash = createHash('sha256').update(payload).digest('hex');
          const host = `bucket.s3.${region}.amazonaws.com`;
          const path = `/${key}`;
          const given = { 'x-amz-content-sha256': payloadHash, 'content-type': 'audio/wav' };
          const ours = signS3(
            { method, host, path, query, region, payloadHash, headers: given },
            credentials,
            now,
          );
          const theirs = aws4.sign(
            {
              host,
              path: `${path}${query.length > 0 ? `?${canonicalQuery(query)}` : ''}`,
              method,
              service: 's3',
              region,
              headers: { ...given, 'x-amz-date': ours['x-amz-date'] },
            },
            credentials,
          );
          expect(ours.authorization).toBe(theirs.headers?.Authorization);
          const smithy = await new SignatureV4({
            service: 's3',
            region,
            credentials,
            sha256: Sha256,
            uriEscapePath: false,
            applyChecksum: false,
          }).sign(
            {
              method,
              protocol: 'https:',
              hostname: host,
              path,
              query: Object.fromEntries(query),
              headers: { ...given, host },
              body: payload,
            },
            { signingDate: now },
          );
          // AWS's signer takes the query as an object: one value a name.
          if (new Set(query.map(([name]) => name)).size === query.length) {
            expect(ours.authorization).toBe(smithy.headers.authorization);
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('presignS3', () => {
  it("gives the URL aws4 and AWS's own signer give for the same GET", async () => {
    await fc.assert(
      fc.asyncProperty(
        s3Key,
        fc.constantFrom('us-east-1', 'eu-west-1', 'ap-northeast-2'),
        sessionToken,
        signingTime,
        fc.integer({ min: 1, max: 604_800 }),
        async (key, region, token, now, expires) => {
          const credentials = { ...EXAMPLE_CREDENTIALS, sessionToken: token };
          const host = `bucket.s3.${region}.amazonaws.com`;
          const path = `/${key}`;
          const ours = new URLSearchParams(
            presignS3({ method: 'GET', host, path, region }, credentials, expires, now),
          );
          // aws4's signer with its clock set, as its own tests set it.
          const signer = new aws4.RequestSigner(
            {
              host,
              path: `${path}?X-Amz-Expires=${expires}`,
              method: 'GET',
              service: 's3',
              region,
              signQuery: true,
            },
            credentials,
          ) as aws4.RequestSigner & { datetime: string };
          signer.datetime = ours.get('X-Amz-Date') ?? '';
          const theirs = signer.sign();
          const theirQuery = new URLSearchParams(theirs.path?.split('?')[1]);
          expect(ours.get('X-Amz-Signature')).toBe(theirQuery.get('X-Amz-Signature'));
          const smithy = await new SignatureV4({
            service: 's3',
            region,
            credentials,
            sha256: Sha256,
            uriEscapePath: false,
            applyChecksum: false,
          }).presign(
            {
              method: 'GET',
              protocol: 'https:',
              hostname: host,
              path,
              // As the SDK's S3 presigner does: the payload is not signed.
              headers: { host, 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' },
            },
            {
              signingDate: now,
              expiresIn: expires,
              unhoistableHeaders: new Set(['x-amz-content-sha256']),
              unsignableHeaders: new Set(['x-amz-content-sha256']),
            },
          );
          expect(ours.get('X-Amz-Signature')).toBe(smithy.query?.['X-Amz-Signature']);
          expect(ours.get('X-Amz-Security-Token') ?? undefined).toBe(token);
        },
      ),
      { numRuns: 200 },
    );
  });
});
