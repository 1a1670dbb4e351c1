import { describe, expect, it } from 'vitest';
import { ACTIVATION_ID_HEADER } from '../../../../emulator/index.js';
import { emulatorForSuite } from '../../../helpers/emulator.js';
import { call, jsonOf } from './helpers.js';

const ORIGIN = 'x-platform-apigw-response-origin';

describe('triggers', () => {
  const emulator = emulatorForSuite();

  it.each(['', '?blocking=true&result=true', '?blocking=true&result=false'])(
    'fires nightly with 202 {"activationId"} whatever the query (%s)',
    async (query) => {
      const response = await call(emulator, 'nightly', { query, body: { name: 'Night' } });
      const body = await jsonOf(response);

      expect(response.status).toBe(202);
      expect(Object.keys(body)).toEqual(['activationId']);
      expect(response.headers.get(ACTIVATION_ID_HEADER)).toBe(body['activationId']);
      expect(response.headers.get(ORIGIN)).toBe('ENDPOINT');
    },
  );

  it("records the trigger's activation and the action its rule runs, with the same params", async () => {
    const response = await call(emulator, 'nightly', { body: { name: 'Night' } });
    const { activationId } = (await jsonOf(response)) as { activationId: string };

    const activations = emulator.actions.activations();
    expect(activations).toMatchObject([
      { activationId, kind: 'trigger', name: 'nightly', params: { name: 'Night' }, method: 'POST' },
      {
        kind: 'action',
        name: 'hello',
        params: { name: 'Night' },
        method: 'POST',
        cause: activationId,
      },
    ]);
    expect(activations[1]?.activationId).not.toBe(activationId);
  });

  it('fires with no body', async () => {
    const response = await call(emulator, 'nightly');

    expect(response.status).toBe(202);
    expect(emulator.actions.activations()[0]?.params).toEqual({});
  });

  it('answers 204 with no body for a trigger without an active rule, recording nothing', async () => {
    const response = await call(emulator, 'unused', { body: { any: 1 } });

    expect(response.status).toBe(204);
    expect(await response.text()).toBe('');
    expect(response.headers.get(ACTIVATION_ID_HEADER)).toBeNull();
    expect(response.headers.get(ORIGIN)).toBe('ENDPOINT');
    expect(emulator.actions.activations()).toEqual([]);
  });

  it('refuses a body that is not a JSON object', async () => {
    const response = await call(emulator, 'nightly', {
      body: '[1]',
      headers: { 'content-type': 'application/json' },
    });

    expect(response.status).toBe(400);
    expect(emulator.actions.activations()).toEqual([]);
  });

  it.each(['GET', 'PUT'])('answers %s with the gateway 404/300, firing nothing', async (method) => {
    const response = await call(emulator, 'nightly', { method });

    expect(response.status).toBe(404);
    expect(response.headers.get(ORIGIN)).toBe('APIGW');
    expect(emulator.actions.activations()).toEqual([]);
  });
});
