import { request as httpRequest } from 'node:http';
import { describe, expect, it } from 'vitest';
import { MAX_BODY_BYTES } from '../../../emulator/index.js';
import { emulatorForSuite } from '../../helpers/emulator.js';
import { json, signedFetch, signedHeaders } from './helpers.js';

const XML_NOT_FOUND =
  '<?xml version="1.0" encoding="UTF-8"?><Message><error><errorCode>300</errorCode>' +
  '<message>Not Found Exception</message></error></Message>';

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

describe('gateway rules', () => {
  const emulator = emulatorForSuite();

  describe('unknown resources', () => {
    it('answers an unknown path with 404/300 "URL not found." without asking for authentication', async () => {
      const response = await fetch(`${emulator.url}/api/v2/jobs`);

      expect(response.status).toBe(404);
      expect(response.headers.get('x-platform-apigw-response-origin')).toBe('APIGW');
      expect(await json(response)).toEqual({
        error: { errorCode: '300', message: 'Not Found Exception', details: 'URL not found.' },
      });
    });

    it.each([
      ['DELETE', '/api/v1/jobs'],
      ['GET', '/api/v1/jobs/search'],
      ['POST', '/api/v1/jobs/2810017/cancel'],
      ['GET', '/api/v1/jobs/2810013/stop'],
      ['PATCH', '/api/v1/jobs/2810011/report'],
      ['GET', '/api/v1/jobs/'],
      ['GET', '/api/v1/jobs/2810011'],
    ])(
      'answers %s %s, a resource/method the API does not define, with 404/300',
      async (method, path) => {
        const response = await signedFetch(emulator, method, path);

        expect(response.status).toBe(404);
        expect(((await json(response)) as { error: { errorCode: string } }).error.errorCode).toBe(
          '300',
        );
      },
    );
  });

  describe('error envelope format', () => {
    it.each(['text/xml', 'application/xml', 'application/json, text/xml;q=0.5'])(
      'answers in XML for Accept: %s',
      async (accept) => {
        const response = await fetch(`${emulator.url}/nowhere`, { headers: { accept } });

        expect(response.status).toBe(404);
        expect(response.headers.get('content-type')).toBe('text/xml;charset=UTF-8');
        expect(await response.text()).toBe(XML_NOT_FOUND);
      },
    );

    it('answers in XML when the request body is application/xml', async () => {
      const response = await fetch(`${emulator.url}/api/v1/jobs/search`, {
        method: 'POST',
        headers: { 'content-type': 'application/xml' },
        body: '<search/>',
      });

      expect(response.status).toBe(401);
      expect(await response.text()).toBe(
        '<?xml version="1.0" encoding="UTF-8"?><Message><error><errorCode>200</errorCode>' +
          '<message>Authentication Failed</message></error></Message>',
      );
    });

    it('answers in JSON by default and for Accept: application/json', async () => {
      for (const headers of [{}, { accept: 'application/json' }, { accept: '*/*' }] as Record<
        string,
        string
      >[]) {
        const response = await fetch(`${emulator.url}/nowhere`, { headers });

        expect(response.headers.get('content-type')).toBe('application/json;charset=UTF-8');
        await response.text();
      }
    });

    it('keeps backend answers in JSON even when XML is asked for', async () => {
      const response = await signedFetch(emulator, 'GET', '/api/v1/jobs?page=0', {
        accept: 'text/xml',
      });

      expect(response.status).toBe(400);
      expect(response.headers.get('content-type')).toBe('application/json;charset=UTF-8');
      expect(response.headers.get('x-platform-apigw-response-origin')).toBe('ENDPOINT');
    });
  });

  describe('10 MB request limit', () => {
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

  describe('request log', () => {
    it('records method, target as received, lower-case headers, body and arrival time', async () => {
      const body = JSON.stringify({ searchType: 'url', searchKeyword: 'demo' });
      const headers = signedHeaders(emulator, 'POST', '/api/v1/jobs/search?x=%7E', {
        contentType: 'application/json',
      });

      await fetch(`${emulator.url}/api/v1/jobs/search?x=%7E`, {
        method: 'POST',
        headers: { ...headers, 'X-Custom-Header': 'A' },
        body,
      });

      const [recorded] = emulator.requests;
      expect(recorded).toMatchObject({
        method: 'POST',
        url: '/api/v1/jobs/search?x=%7E',
        bodyLength: Buffer.byteLength(body),
        body,
      });
      expect(recorded?.headers['x-custom-header']).toBe('A');
      expect(recorded?.headers['x-platform-apigw-signature-v2']).toBe(
        headers['x-platform-apigw-signature-v2'],
      );
      expect(typeof recorded?.time).toBe('number');
    });

    it('records refused requests too, and no control requests', async () => {
      await (await fetch(`${emulator.url}/api/v1/jobs`)).text();
      await (await fetch(`${emulator.url}/__emulator/requests`)).text();
      await (await fetch(`${emulator.url}/__emulator/faults`)).text();

      expect(emulator.requests.map((entry) => entry.url)).toEqual(['/api/v1/jobs']);
    });
  });
});
