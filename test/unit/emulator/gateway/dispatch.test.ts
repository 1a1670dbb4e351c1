import { describe, expect, it } from 'vitest';
import { emulatorForSuite } from '../../../helpers/emulator.ts';
import { json, signedFetch } from '../helpers.ts';

describe('unknown resources', () => {
  const emulator = emulatorForSuite();

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
