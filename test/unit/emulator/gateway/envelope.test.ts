import { describe, expect, it } from 'vitest';
import { emulatorForSuite } from '../../../helpers/emulator.ts';
import { signedFetch } from '../helpers.ts';

const XML_NOT_FOUND =
  '<?xml version="1.0" encoding="UTF-8"?><Message><error><errorCode>300</errorCode>' +
  '<message>Not Found Exception</message></error></Message>';

describe('error envelope format', () => {
  const emulator = emulatorForSuite();

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
