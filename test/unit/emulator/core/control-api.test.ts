import { describe, expect, it } from 'vitest';
import { emulatorForSuite } from '../../../helpers/emulator.ts';
import { json, signedFetch } from '../helpers.ts';

const LIST = '/api/v1/jobs';

describe('HTTP control endpoints', () => {
  const emulator = emulatorForSuite();
  const listJobs = () => signedFetch(emulator, 'GET', LIST);
  const control = (method: string, path: string, body?: unknown) =>
    fetch(`${emulator.url}/__emulator${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  it('adds a fault with POST /__emulator/faults and clears faults with DELETE', async () => {
    const added = await control('POST', '/faults', {
      kind: 'status',
      status: 429,
      errorCode: '420',
      times: 0,
    });

    expect(added.status).toBe(201);
    expect(await json(added)).toMatchObject({
      faults: [{ remaining: null, fault: { kind: 'status', status: 429 } }],
    });
    expect((await listJobs()).status).toBe(429);

    const listed = (await json(await control('GET', '/faults'))) as { faults: unknown[] };
    expect(listed.faults).toHaveLength(1);

    expect((await control('DELETE', '/faults')).status).toBe(204);
    expect((await listJobs()).status).toBe(200);
  });

  it('adds an array of faults at once', async () => {
    const added = await control('POST', '/faults', [
      { kind: 'status', status: 429, errorCode: '400' },
      { kind: 'status', status: 429, errorCode: '410' },
    ]);

    expect(added.status).toBe(201);
    expect(emulator.faults.list()).toHaveLength(2);
  });

  it('refuses a malformed fault with 400 and registers nothing from the batch', async () => {
    const refused = await control('POST', '/faults', [{ kind: 'reset' }, { kind: 'latency' }]);

    expect(refused.status).toBe(400);
    expect(((await json(refused)) as { error: string }).error).toMatch(/ms/);
    expect(emulator.faults.list()).toEqual([]);
  });

  it('refuses a body that is not JSON', async () => {
    const refused = await fetch(`${emulator.url}/__emulator/faults`, {
      method: 'POST',
      body: 'kind=reset',
    });

    expect(refused.status).toBe(400);
    await refused.text();
  });

  it('serves the request log with GET /__emulator/requests and clears it with DELETE', async () => {
    await (await listJobs()).text();

    const log = (await json(await control('GET', '/requests'))) as {
      requests: { method: string; url: string }[];
    };
    expect(log.requests).toMatchObject([{ method: 'GET', url: LIST }]);

    expect((await control('DELETE', '/requests')).status).toBe(204);
    expect(emulator.requests).toEqual([]);
  });

  it('resets everything with POST /__emulator/reset', async () => {
    emulator.faults.add({ kind: 'skew', ms: 1, times: 0 });
    emulator.scanJobs.cancel('2810017');
    await (await listJobs()).text();

    expect((await control('POST', '/reset')).status).toBe(204);

    expect(emulator.faults.list()).toEqual([]);
    expect(emulator.requests).toEqual([]);
    expect(emulator.scanJobs.get('2810017')?.status).toBe('Reservation');
  });

  it('lists and advances scan jobs', async () => {
    const one = (await json(await control('POST', '/jobs/2810017/advance'))) as {
      advanced: { status: string }[];
    };
    expect(one.advanced).toMatchObject([{ instanceNo: '2810017', status: 'Progress' }]);

    const all = (await json(await control('POST', '/jobs/advance'))) as { advanced: unknown[] };
    expect(all.advanced).toHaveLength(9 + 5);

    const jobs = (await json(await control('GET', '/jobs'))) as { jobs: { status: string }[] };
    expect(jobs.jobs.filter((job) => job.status === 'Reservation')).toHaveLength(0);
    expect((await control('POST', '/jobs/9999999/advance')).status).toBe(404);
  });

  it('answers unknown control endpoints with 404 and wrong methods with 405', async () => {
    expect((await control('GET', '/nothing')).status).toBe(404);
    expect((await control('PUT', '/faults')).status).toBe(405);
  });

  it('answers health checks', async () => {
    expect(await json(await control('GET', '/health'))).toEqual({ status: 'ok' });
  });
});
