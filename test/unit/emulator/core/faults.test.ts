import { describe, expect, it } from 'vitest';
import {
  AUTH_DETAILS,
  type Fault,
  FaultValidationError,
  MAX_CLOCK_SKEW_MS,
} from '../../../../emulator/index.ts';
import { emulatorForSuite } from '../../../helpers/emulator.ts';
import { json, signedFetch } from '../helpers.ts';

const LIST = '/api/v1/jobs';

describe('fault injection', () => {
  const emulator = emulatorForSuite();
  const listJobs = () => signedFetch(emulator, 'GET', LIST);

  describe('faults on how an answer is delivered', () => {
    it('drips the body of a handled request, byte by byte, then completes it', async () => {
      emulator.faults.add({
        kind: 'drip',
        part: 'body',
        intervalMs: 1,
        match: { pathPrefix: LIST },
      });
      // One job, so that the body is a few hundred bytes rather than several thousand.
      const response = await signedFetch(emulator, 'GET', `${LIST}?limit=1`);
      expect(response.status).toBe(200);
      const body = (await json(response)) as { resources: { record_data: unknown[] } };
      expect(body.resources.record_data).toHaveLength(1);
    });

    it('drips the headers, then completes the answer', async () => {
      emulator.faults.add({ kind: 'drip', part: 'headers', intervalMs: 1 });
      const response = await listJobs();
      expect(response.status).toBe(200);
      await response.text();
    });

    it('cuts a handled answer after its headers', async () => {
      emulator.faults.add({ kind: 'cut' });
      const response = await listJobs();
      expect(response.status).toBe(200);
      await expect(response.text()).rejects.toThrow();
      expect(emulator.requests).toHaveLength(1);
    });

    it('streams an oversized body instead of handling the request', async () => {
      emulator.faults.add({ kind: 'oversize', bytes: 3 * 1024 * 1024, status: 502, head: 'HEAD' });
      const response = await listJobs();
      expect(response.status).toBe(502);
      expect(response.headers.get('x-platform-apigw-response-origin')).toBe('ENDPOINT');
      const body = Buffer.from(await response.arrayBuffer());
      expect(body.length).toBe(3 * 1024 * 1024);
      expect(body.subarray(0, 4).toString()).toBe('HEAD');
    });

    it.each([
      { kind: 'drip', part: 'middle', intervalMs: 1 },
      { kind: 'drip', part: 'body', intervalMs: 0 },
      { kind: 'oversize', bytes: -1 },
      { kind: 'cut', extra: true },
    ])('refuses a malformed delivery fault %j', (fault) => {
      expect(() => emulator.faults.add(fault as unknown as Fault)).toThrow(FaultValidationError);
    });
  });

  describe('status faults', () => {
    it.each([
      [429, undefined, '400', 'Quota Exceeded'],
      [429, '410', '410', 'Throttle Limited'],
      [429, '420', '420', 'Rate Limited'],
      [503, undefined, '500', 'Endpoint Error'],
      [504, undefined, '510', 'Endpoint Timeout'],
      [500, undefined, '900', 'Unexpected Error'],
    ])(
      'answers %i with errorCode %s as the gateway would',
      async (status, errorCode, expectedCode, message) => {
        emulator.faults.add({ kind: 'status', status, errorCode });

        const response = await listJobs();

        expect(response.status).toBe(status);
        expect(response.headers.get('x-platform-apigw-response-origin')).toBe('APIGW');
        expect(await json(response)).toEqual({ error: { errorCode: expectedCode, message } });
      },
    );

    it('applies as many times as asked, then lets requests through', async () => {
      emulator.faults.add({ kind: 'status', status: 429, errorCode: '410', times: 3 });

      const statuses: number[] = [];
      for (let call = 0; call < 4; call += 1) statuses.push((await listJobs()).status);

      expect(statuses).toEqual([429, 429, 429, 200]);
      expect(emulator.faults.list()).toEqual([]);
    });

    it('applies until cleared when times is 0 or Infinity', async () => {
      emulator.faults.add({ kind: 'status', status: 503, times: 0 });
      emulator.faults.add({ kind: 'status', status: 504, times: Number.POSITIVE_INFINITY });

      for (let call = 0; call < 3; call += 1) expect((await listJobs()).status).toBe(503);
      expect(emulator.faults.list().map((fault) => fault.remaining)).toEqual([null, null]);

      emulator.faults.clear();
      expect((await listJobs()).status).toBe(200);
    });

    it('sends a raw body with its content type and origin', async () => {
      emulator.faults.add({
        kind: 'status',
        status: 403,
        body: '',
        contentType: 'text/plain',
        origin: 'ENDPOINT',
      });

      const response = await listJobs();

      expect(response.status).toBe(403);
      expect(response.headers.get('content-type')).toBe('text/plain');
      expect(response.headers.get('x-platform-apigw-response-origin')).toBe('ENDPOINT');
      expect(await response.text()).toBe('');
    });

    it('answers in XML when the request asks for it', async () => {
      emulator.faults.add({ kind: 'status', status: 429, errorCode: '420' });

      const response = await signedFetch(emulator, 'GET', LIST, { accept: 'text/xml' });

      expect(await response.text()).toContain(
        '<errorCode>420</errorCode><message>Rate Limited</message>',
      );
    });

    it('only touches requests that match method and path prefix', async () => {
      emulator.faults.add({
        kind: 'status',
        status: 503,
        match: { method: 'patch', pathPrefix: '/api/v1/jobs/' },
      });

      const list = await listJobs();
      const cancel = await signedFetch(emulator, 'PATCH', '/api/v1/jobs/2810017/cancel');

      expect(list.status).toBe(200);
      expect(cancel.status).toBe(503);
      expect(emulator.scanJobs.get('2810017')?.status).toBe('Reservation');
    });
  });

  describe('reset faults', () => {
    it('drops the connection without an answer, after recording the request', async () => {
      emulator.faults.add({ kind: 'reset' });

      await expect(listJobs()).rejects.toThrow();
      expect(emulator.requests).toHaveLength(1);
      expect((await listJobs()).status).toBe(200);
    });
  });

  describe('latency faults', () => {
    it('holds a request back while others are answered, then answers it normally', async () => {
      // Long enough that the other request, sent after it, is answered first on a loaded machine.
      emulator.faults.add({
        kind: 'latency',
        ms: 2000,
        match: { pathPrefix: '/api/v1/jobs/search' },
      });
      const finished: string[] = [];

      const slow = signedFetch(emulator, 'POST', '/api/v1/jobs/search', {
        body: '{}',
        contentType: 'application/json',
      }).then((response) => {
        finished.push('slow');
        return response;
      });
      const fast = listJobs().then((response) => {
        finished.push('fast');
        return response;
      });

      expect((await fast).status).toBe(200);
      expect((await slow).status).toBe(200);
      expect(finished).toEqual(['fast', 'slow']);
    });

    it('combines with a status fault: a slow failure', async () => {
      emulator.faults.add({ kind: 'latency', ms: 50 });
      emulator.faults.add({ kind: 'status', status: 504 });

      expect((await listJobs()).status).toBe(504);
      expect(emulator.faults.list()).toEqual([]);
    });
  });

  describe('skew faults', () => {
    it('puts the gateway clock off, so a correctly timed signature is refused', async () => {
      emulator.faults.add({ kind: 'skew', ms: MAX_CLOCK_SKEW_MS + 1000 });

      const skewed = await listJobs();
      const next = await listJobs();

      expect(skewed.status).toBe(401);
      expect(((await json(skewed)) as { error: { details: string } }).error.details).toBe(
        AUTH_DETAILS.skewedTimestamp,
      );
      expect(next.status).toBe(200);
    });

    it('accepts a client whose clock is off by the same amount', async () => {
      const skew = -10 * 60 * 1000;
      emulator.faults.add({ kind: 'skew', ms: skew });

      const response = await signedFetch(emulator, 'GET', LIST, {
        timestamp: String(Date.now() + skew),
      });

      expect(response.status).toBe(200);
    });
  });

  describe('programmatic control', () => {
    it.each([
      [{ kind: 'latency', ms: -1 }],
      [{ kind: 'status', status: 99 }],
      [{ kind: 'status', status: 429, times: -1 }],
      [{ kind: 'skew', ms: 1.5 }],
      [{ kind: 'explode' }],
      [{ kind: 'reset', match: { pathPrefix: 'api' } }],
    ])('refuses a malformed fault %j', (fault) => {
      expect(() => emulator.faults.add(fault as unknown as Fault)).toThrow(FaultValidationError);
      expect(emulator.faults.list()).toEqual([]);
    });

    it('lists and removes faults by id', () => {
      const first = emulator.faults.add({ kind: 'reset', times: 2 });
      const second = emulator.faults.add({ kind: 'latency', ms: 10 });

      expect(emulator.faults.list()).toEqual([
        { id: first.id, remaining: 2, fault: { kind: 'reset', times: 2 } },
        { id: second.id, remaining: 1, fault: { kind: 'latency', ms: 10 } },
      ]);
      expect(emulator.faults.remove(first.id)).toBe(true);
      expect(emulator.faults.remove(first.id)).toBe(false);
      expect(emulator.faults.list().map((fault) => fault.id)).toEqual([second.id]);
    });
  });
});
