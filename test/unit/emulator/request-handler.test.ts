import { request as httpRequest } from 'node:http';
import { describe, expect, it } from 'vitest';
import { MAX_BODY_BYTES } from '../../../emulator/index.ts';
import { emulatorForSuite } from '../../helpers/emulator.ts';
import { json, signedFetch } from './helpers.ts';

/** Sends a chunked body (no Content-Length) with node:http, which fetch cannot do for a Buffer. */
function postChunked(
  url: string,
  chunks: number,
  chunkBytes: number,
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${url}/api/v1/jobs/search`,
      { method: 'POST', headers: { 'content-type': 'application/json' } },
      (res) => {
        const parts: Buffer[] = [];
        res.on('data', (part: Buffer) => parts.push(part));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(parts).toString('utf8'),
          }),
        );
      },
    );
    req.on('error', reject);
    const chunk = Buffer.alloc(chunkBytes, 0x20);
    let sent = 0;
    const writeMore = (): void => {
      while (sent < chunks) {
        sent += 1;
        if (!req.write(chunk)) {
          req.once('drain', writeMore);
          return;
        }
      }
      req.end();
    };
    writeMore();
  });
}

describe('10 MB request limit', () => {
  const emulator = emulatorForSuite();

  const TOO_LARGE = {
    error: {
      errorCode: '430',
      message: 'Request Entity Too Large',
      details: 'Request body is larger than 10 MB.',
    },
  };

  it('refuses an 11 MB body with 413/430, answered once the upload is done', async () => {
    const response = await signedFetch(emulator, 'POST', '/api/v1/jobs/search', {
      body: Buffer.alloc(11 * 1024 * 1024, 0x20),
      contentType: 'application/json',
    });

    expect(response.status).toBe(413);
    expect(response.headers.get('x-platform-apigw-response-origin')).toBe('APIGW');
    expect(await json(response)).toEqual(TOO_LARGE);
    expect(emulator.requests.at(-1)).toMatchObject({
      method: 'POST',
      bodyLength: 11 * 1024 * 1024,
    });
    expect(emulator.requests.at(-1)?.body).toBeUndefined();
  });

  it('reaches every client: 10 of 10 uploads of 11 MB read the 413 envelope, none a broken pipe', async () => {
    for (let i = 0; i < 10; i++) {
      const response = await fetch(`${emulator.url}/api/v1/jobs/search`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: Buffer.alloc(11 * 1024 * 1024, 0x20),
      });
      expect(response.status).toBe(413);
      expect(await json(response)).toEqual(TOO_LARGE);
    }
  });

  it('refuses a chunked body once it passes 10 MB, counting as it reads', async () => {
    const answer = await postChunked(emulator.url, 11, 1024 * 1024);

    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toEqual(TOO_LARGE);
    expect(emulator.requests.at(-1)?.bodyLength).toBeGreaterThan(MAX_BODY_BYTES);
  });

  it('refuses an oversized body before authentication', async () => {
    const response = await fetch(`${emulator.url}/api/v1/jobs/search`, {
      method: 'POST',
      body: Buffer.alloc(MAX_BODY_BYTES + 1),
    });

    expect(response.status).toBe(413);
    await response.text();
  });

  it('lets a body of exactly 10 MB through to the backend', async () => {
    const response = await signedFetch(emulator, 'POST', '/api/v1/jobs/search', {
      body: Buffer.alloc(MAX_BODY_BYTES, 0x20),
      contentType: 'application/json',
    });

    // Only blanks: the backend's JSON parser refuses it, the gateway did not.
    expect(response.status).toBe(400);
    expect(response.headers.get('x-platform-apigw-response-origin')).toBe('ENDPOINT');
    await response.text();
  });
});
