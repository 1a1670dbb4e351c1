import { describe, expect, it } from 'vitest';
import { InputError, ServiceError } from '../../../../../lib/core/errors.ts';
import { errorEnvelope } from '../../../../../lib/http/middleware/error-envelope.ts';
import { jsonBody } from '../../../../helpers/lambda.ts';
import { ownStack, stateOf } from './own-stack.ts';

const failing = (error: unknown) =>
  ownStack([errorEnvelope()], async () => {
    throw error;
  });

describe('errorEnvelope', () => {
  it('answers a service error with its own status, code, details and headers', async () => {
    const { state, lines } = stateOf();
    const error = new ServiceError({
      status: 429,
      code: '420',
      message: 'Rate Limited',
      details: 'slow down',
      headers: { 'Retry-After': '3' },
    });
    const result = await failing(error)(state);
    expect(result.statusCode).toBe(429);
    expect(result.headers).toMatchObject({
      'Retry-After': '3',
      'Content-Type': 'application/json',
    });
    expect(jsonBody(result)).toEqual({
      error: { errorCode: '420', message: 'Rate Limited', details: 'slow down' },
    });
    // A caller's error is no failure of the service: not logged here.
    expect(lines).toEqual([]);
  });

  it('answers anything else with 500/900, logged with its name and no stack', async () => {
    const { state, logged, lines } = stateOf();
    const result = await failing(new TypeError('detail at /var/task/index.mjs:1:2'))(state);
    expect(result.statusCode).toBe(500);
    expect(jsonBody(result)).toEqual({ error: { errorCode: '900', message: 'Unexpected Error' } });
    expect(result.body).not.toContain('index.mjs');
    expect(logged()).toEqual([
      expect.objectContaining({ level: 'error', message: 'error', errorName: 'TypeError' }),
    ]);
    expect(lines.join('\n')).not.toMatch(/\n\s+at /);
  });

  it("carries the request's own answer headers (its RateLimit fields), under the error's own", async () => {
    const { state } = stateOf();
    state.carried.carry({
      RateLimit: '"caller-rate";r=0;t=1',
      'Retry-After': '9',
    });
    const result = await failing(
      new ServiceError({
        status: 429,
        code: '420',
        message: 'Rate Limited',
        headers: { 'Retry-After': '1' },
      }),
    )(state);
    expect(result.headers).toMatchObject({
      RateLimit: '"caller-rate";r=0;t=1',
      'Retry-After': '1',
    });
  });

  it('answers in XML when the caller asks for it or sends XML', async () => {
    for (const headers of [{ accept: 'text/xml' }, { 'content-type': 'application/xml' }]) {
      const { state } = stateOf({ headers });
      const result = await failing(new InputError([{ path: 'body', issue: 'x' }]))(state);
      expect(result.statusCode).toBe(400);
      expect(result.headers?.['Content-Type']).toBe('text/xml');
      expect(result.body).toContain('<errorCode>100</errorCode>');
    }
  });

  it('leaves an answer alone when nothing was thrown', async () => {
    const { state } = stateOf();
    expect((await ownStack([errorEnvelope()])(state)).statusCode).toBe(200);
  });
});
