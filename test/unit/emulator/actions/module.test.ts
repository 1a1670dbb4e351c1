import { describe, expect, it } from 'vitest';
import {
  ACTIVATION_ID_HEADER,
  type ActivationRecord,
  FAIL_ERROR,
} from '../../../../emulator/index.ts';
import { emulatorForSuite } from '../../../helpers/emulator.ts';
import { call, jsonOf } from './helpers.ts';

const ORIGIN = 'x-platform-apigw-response-origin';
const ACTIVATION_ID = /^[0-9a-f]{32}$/;

const RECORD_FIELDS = [
  'activationId',
  'annotations',
  'duration',
  'end',
  'logs',
  'name',
  'namespace',
  'publish',
  'response',
  'start',
  'subject',
  'version',
];

describe('ordinary (non-web) actions', () => {
  const emulator = emulatorForSuite();

  describe('hello, with each blocking/result combination', () => {
    it('answers 202 {"activationId"} by default (blocking=false), and the action runs', async () => {
      const response = await call(emulator, 'hello', { body: { name: 'Ada' } });
      const body = await jsonOf(response);

      expect(response.status).toBe(202);
      expect(Object.keys(body)).toEqual(['activationId']);
      expect(body['activationId']).toMatch(ACTIVATION_ID);
      expect(response.headers.get(ACTIVATION_ID_HEADER)).toBe(body['activationId']);
      expect(response.headers.get(ORIGIN)).toBe('ENDPOINT');
      expect(emulator.actions.activations()).toMatchObject([
        {
          activationId: body['activationId'],
          kind: 'action',
          name: 'hello',
          params: { name: 'Ada' },
        },
      ]);
    });

    it('answers 202 for blocking=false&result=true too: result only applies to blocking calls', async () => {
      const response = await call(emulator, 'hello', { query: '?blocking=false&result=true' });

      expect(response.status).toBe(202);
      expect(Object.keys(await jsonOf(response))).toEqual(['activationId']);
    });

    it('answers the result only for blocking=true&result=true', async () => {
      const response = await call(emulator, 'hello', {
        query: '?blocking=true&result=true',
        body: { name: 'Ada' },
      });

      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await jsonOf(response)).toEqual({ payload: 'Hello, Ada!' });
      expect(response.headers.get(ACTIVATION_ID_HEADER)).toMatch(ACTIVATION_ID);
      expect(response.headers.get(ORIGIN)).toBe('ENDPOINT');
    });

    it('greets the World when no name is given, with or without a body', async () => {
      const withoutBody = await call(emulator, 'hello', { query: '?blocking=true&result=true' });
      const emptyObject = await call(emulator, 'hello', {
        query: '?blocking=true&result=true',
        body: {},
      });

      expect(await jsonOf(withoutBody)).toEqual({ payload: 'Hello, World!' });
      expect(await jsonOf(emptyObject)).toEqual({ payload: 'Hello, World!' });
    });

    it('answers the whole activation record for blocking=true (result defaults to false)', async () => {
      const response = await call(emulator, 'hello', {
        query: '?blocking=true',
        body: { name: 'Ada' },
      });
      const record = (await jsonOf(response)) as unknown as ActivationRecord;

      expect(response.status).toBe(200);
      expect(Object.keys(record).sort()).toEqual(RECORD_FIELDS);
      expect(record).toMatchObject({
        name: 'hello',
        publish: false,
        version: '0.0.1',
        logs: [],
        response: { result: { payload: 'Hello, Ada!' }, success: true, status: 'success' },
      });
      expect(record.activationId).toMatch(ACTIVATION_ID);
      expect(response.headers.get(ACTIVATION_ID_HEADER)).toBe(record.activationId);
      expect(record.end).toBeGreaterThanOrEqual(record.start);
      expect(record.duration).toBe(record.end - record.start);
      expect(record.annotations).toContainEqual({
        key: 'path',
        value: `${record.namespace}/hello`,
      });
    });

    it('answers the same record for an explicit blocking=true&result=false', async () => {
      const response = await call(emulator, 'hello', { query: '?blocking=true&result=false' });
      const record = (await jsonOf(response)) as unknown as ActivationRecord;

      expect(response.status).toBe(200);
      expect(record.response.result).toEqual({ payload: 'Hello, World!' });
    });

    it('reads the flags as OpenWhisk does: yes/on/1 and no/off/0, any case', async () => {
      const response = await call(emulator, 'hello', { query: '?blocking=YES&result=1' });

      expect(response.status).toBe(200);
      expect(await jsonOf(response)).toEqual({ payload: 'Hello, World!' });
    });

    it.each([
      ['blocking', '?blocking=maybe', "The query parameter 'blocking' was malformed"],
      ['result', '?blocking=true&result=2', "The query parameter 'result' was malformed"],
      ['timeout', '?blocking=true&timeout=60001', "The query parameter 'timeout' was malformed"],
    ])('refuses a malformed %s with 400 and runs nothing', async (_name, query, message) => {
      const response = await call(emulator, 'hello', { query });
      const body = await jsonOf(response);

      expect(response.status).toBe(400);
      expect(String(body['error'])).toContain(message);
      expect(typeof body['code']).toBe('string');
      expect(response.headers.get(ORIGIN)).toBe('ENDPOINT');
      expect(emulator.actions.activations()).toEqual([]);
    });
  });

  describe('fail (an application error)', () => {
    it('answers 202 when not blocking', async () => {
      const response = await call(emulator, 'fail');

      expect(response.status).toBe(202);
      expect(emulator.actions.activations()).toHaveLength(1);
    });

    it('answers 502 with {"error"} for blocking=true&result=true', async () => {
      const response = await call(emulator, 'fail', { query: '?blocking=true&result=true' });

      expect(response.status).toBe(502);
      expect(await jsonOf(response)).toEqual({ error: FAIL_ERROR });
      expect(response.headers.get(ACTIVATION_ID_HEADER)).toMatch(ACTIVATION_ID);
      expect(response.headers.get(ORIGIN)).toBe('ENDPOINT');
    });

    it('answers 502 with the record, status application_error, for blocking=true', async () => {
      const response = await call(emulator, 'fail', { query: '?blocking=true&result=false' });
      const record = (await jsonOf(response)) as unknown as ActivationRecord;

      expect(response.status).toBe(502);
      expect(record.response).toEqual({
        result: { error: FAIL_ERROR },
        success: false,
        status: 'application_error',
      });
      expect(response.headers.get(ACTIVATION_ID_HEADER)).toBe(record.activationId);
    });
  });

  describe('slow', () => {
    it('answers its result when the caller waits', async () => {
      const response = await call(emulator, 'slow', {
        query: '?blocking=true&result=true',
        body: { ms: 20 },
      });

      expect(response.status).toBe(200);
      expect(await jsonOf(response)).toEqual({ payload: 'Slept 20 ms.' });
    });

    it('sleeps 300 ms unless told otherwise', async () => {
      const response = await call(emulator, 'slow', { query: '?blocking=true&result=true' });

      expect(await jsonOf(response)).toEqual({ payload: 'Slept 300 ms.' });
    });

    it('answers 202 {"activationId"} when it outlives the blocking wait (timeout)', async () => {
      const response = await call(emulator, 'slow', {
        query: '?blocking=true&result=true&timeout=1',
        body: { ms: 5000 },
      });
      const body = await jsonOf(response);

      expect(response.status).toBe(202);
      expect(Object.keys(body)).toEqual(['activationId']);
      expect(response.headers.get(ACTIVATION_ID_HEADER)).toBe(body['activationId']);
    });
  });

  describe('the request', () => {
    it('refuses a body that is not application/json with 415, and runs nothing', async () => {
      const response = await call(emulator, 'hello', {
        body: 'name=Ada',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });

      expect(response.status).toBe(415);
      expect(String((await jsonOf(response))['error'])).toContain('application/json');
      expect(emulator.actions.activations()).toEqual([]);
    });

    it.each([
      ['malformed JSON', '{"name":'],
      ['a JSON array', '["Ada"]'],
      ['a JSON string', '"Ada"'],
    ])('refuses %s with 400, and runs nothing', async (_case, text) => {
      const response = await call(emulator, 'hello', {
        body: text,
        headers: { 'content-type': 'application/json' },
      });

      expect(response.status).toBe(400);
      expect(String((await jsonOf(response))['error'])).toMatch(
        /^The request content was malformed/,
      );
      expect(emulator.actions.activations()).toEqual([]);
    });

    it.each(['GET', 'PUT', 'DELETE', 'PATCH'])(
      'answers %s with the gateway 404/300 (the resource defines POST only), and runs nothing',
      async (method) => {
        const response = await call(emulator, 'hello', { method, query: '?blocking=true' });

        expect(response.status).toBe(404);
        expect(response.headers.get(ORIGIN)).toBe('APIGW');
        expect(await jsonOf(response)).toEqual({
          error: { errorCode: '300', message: 'Not Found Exception', details: 'URL not found.' },
        });
        expect(emulator.actions.activations()).toEqual([]);
      },
    );

    it('answers an unknown resource with 404/300', async () => {
      const response = await call(emulator, 'nope', { query: '?blocking=true' });

      expect(response.status).toBe(404);
      expect(response.headers.get(ORIGIN)).toBe('APIGW');
    });
  });

  describe('faults of the gateway', () => {
    it('answers an injected 429 with the gateway envelope, and runs nothing', async () => {
      emulator.faults.add({
        kind: 'status',
        status: 429,
        errorCode: '410',
        match: { pathPrefix: '/fx7h2k/' },
      });

      const response = await call(emulator, 'hello', { query: '?blocking=true&result=true' });

      expect(response.status).toBe(429);
      expect(response.headers.get(ORIGIN)).toBe('APIGW');
      expect(await jsonOf(response)).toEqual({
        error: { errorCode: '410', message: 'Throttle Limited' },
      });
      expect(emulator.actions.activations()).toEqual([]);
    });

    it('resets the connection on an injected reset, and runs nothing', async () => {
      emulator.faults.add({ kind: 'reset', match: { pathPrefix: '/fx7h2k/demo/hello' } });

      await expect(call(emulator, 'hello', { query: '?blocking=true' })).rejects.toThrow();
      expect(emulator.actions.activations()).toEqual([]);
    });
  });
});

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
