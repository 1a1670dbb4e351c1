import { describe, expect, it } from 'vitest';
import { identifyAnswer } from '../../../../lib/upstream/answer-origin.ts';

const envelope = (code: string | number, extra: Record<string, unknown> = {}) =>
  Buffer.from(JSON.stringify({ error: { errorCode: code, message: 'm', ...extra } }));

describe('identifyAnswer', () => {
  it("believes the gateway's response-origin header, under the vendor's own name", () => {
    const body = envelope('200');
    expect(
      identifyAnswer(401, { 'x-ncp-apigw-response-origin': 'APIGW' }, body, 'ncp').origin,
    ).toBe('gateway');
    expect(
      identifyAnswer(401, { 'x-ncp-apigw-response-origin': ' apigw ' }, body, 'NCP').origin,
    ).toBe('gateway');
    expect(
      identifyAnswer(401, { 'x-ncp-apigw-response-origin': 'ENDPOINT' }, body, 'ncp').origin,
    ).toBe('endpoint');
    // Another vendor's header says nothing.
    expect(
      identifyAnswer(500, { 'x-ncp-apigw-response-origin': 'APIGW' }, Buffer.from('x'), 'platform')
        .origin,
    ).toBe('endpoint');
  });

  it("takes an answer without the header for the gateway's only when it is exactly its envelope with its table status", () => {
    const shaped = (status: number, body: Buffer) => identifyAnswer(status, {}, body, 'platform');
    expect(shaped(429, envelope('400'))).toEqual({ origin: 'gateway-shaped', errorCode: '400' });
    expect(shaped(504, envelope(510, { details: 'x' }))).toEqual({
      origin: 'gateway-shaped',
      errorCode: '510',
    });
    expect(shaped(401, envelope('210')).origin).toBe('gateway-shaped');
    // The code with another status, an unknown code, or a success status: the endpoint's.
    expect(shaped(400, envelope('400')).origin).toBe('endpoint');
    expect(shaped(404, envelope('N404')).origin).toBe('endpoint');
    expect(shaped(200, envelope('200')).origin).toBe('endpoint');
  });

  it('reads the envelope strictly: nothing more, nothing else', () => {
    const origin = (text: string) => identifyAnswer(401, {}, Buffer.from(text), 'platform').origin;
    expect(origin('{"error":{"errorCode":"200","message":"x","extra":1}}')).toBe('endpoint');
    expect(origin('{"error":{"errorCode":"200","message":"x"},"more":true}')).toBe('endpoint');
    expect(origin('{"error":{"errorCode":"200"}}')).toBe('endpoint');
    expect(origin('{"error":{"errorCode":true,"message":"x"}}')).toBe('endpoint');
    expect(origin('{"error":{"errorCode":"200","message":"x","details":{}}}')).toBe('endpoint');
    expect(origin(' {"error":{"errorCode":"200","message":"x"}}')).toBe('endpoint');
    expect(origin('Unauthorized')).toBe('endpoint');
    expect(origin('')).toBe('endpoint');
  });

  it('gives the errorCode of an envelope, whoever answered, and none for another body', () => {
    expect(
      identifyAnswer(
        502,
        { 'x-platform-apigw-response-origin': 'ENDPOINT' },
        envelope(7),
        'platform',
      ).errorCode,
    ).toBe('7');
    expect(identifyAnswer(502, {}, Buffer.from('{"error":"boom"}'), 'platform').errorCode).toBe(
      undefined,
    );
  });

  it('does not parse a body larger than an envelope can be', () => {
    const padded = Buffer.from(
      JSON.stringify({ error: { errorCode: '400', message: 'x'.repeat(64 * 1024) } }),
    );
    expect(identifyAnswer(429, {}, padded, 'platform')).toEqual({
      origin: 'endpoint',
      errorCode: undefined,
    });
  });
});
