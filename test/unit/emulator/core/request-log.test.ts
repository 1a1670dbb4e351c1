import { describe, expect, it } from 'vitest';
import { emulatorForSuite } from '../../../helpers/emulator.ts';
import { signedHeaders } from '../helpers.ts';

describe('request log', () => {
  const emulator = emulatorForSuite();

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
