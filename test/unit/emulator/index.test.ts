import { Agent, get } from 'node:http';
import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  DEFAULT_MAX_LIMIT,
  type Emulator,
  type ScanJobRecord,
  startEmulator,
  syntheticScanJobs,
} from '../../../emulator/index.ts';
import { json, signedFetch } from './helpers.ts';

/** One GET over a keep-alive agent; resolves with its socket, left open for reuse. */
function getKeepingAlive(url: string, agent: Agent): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const req = get(url, { agent }, (res) => {
      res.resume();
      res.on('end', () => resolve(req.socket as Socket));
    });
    req.on('error', reject);
  });
}

describe('emulator lifecycle', () => {
  it('listens on a free port by default and reports its URL', async () => {
    const emulator = await startEmulator({ quiet: true });
    try {
      expect(emulator.port).toBeGreaterThan(0);
      expect(emulator.url).toBe(`http://127.0.0.1:${emulator.port}`);
    } finally {
      await emulator.close();
    }
  });

  it('keeps connections alive and destroys idle ones on close', async () => {
    const emulator = await startEmulator({ quiet: true });
    const agent = new Agent({ keepAlive: true });
    try {
      const socket = await getKeepingAlive(`${emulator.url}/__emulator/health`, agent);
      const closed = new Promise((resolve) => socket.once('close', resolve));

      expect(socket.destroyed).toBe(false);
      await emulator.close();
      await closed;

      expect(socket.destroyed).toBe(true);
    } finally {
      agent.destroy();
    }
  });

  it('drops a request held by injected latency when it closes', async () => {
    const emulator = await startEmulator({ quiet: true });
    emulator.faults.add({ kind: 'latency', ms: 60_000 });

    const pending = signedFetch(emulator, 'GET', '/api/v1/jobs');
    while (emulator.requests.length === 0) await new Promise((resolve) => setImmediate(resolve));
    await emulator.close();

    await expect(pending).rejects.toThrow();
  });

  it('drops a request held by injected latency on reset, so it never acts on the fresh state', async () => {
    const emulator = await startEmulator({ quiet: true });
    try {
      emulator.faults.add({ kind: 'latency', ms: 200 });
      const pending = signedFetch(emulator, 'PATCH', '/api/v1/jobs/2810017/cancel');
      while (emulator.requests.length === 0) await new Promise((resolve) => setImmediate(resolve));
      emulator.reset();

      await expect(pending).rejects.toThrow();
      const after = await signedFetch(emulator, 'PATCH', '/api/v1/jobs/2810017/cancel');
      expect(after.status).toBe(200);
    } finally {
      await emulator.close();
    }
  });

  it('can be closed twice', async () => {
    const emulator = await startEmulator({ quiet: true });

    await emulator.close();
    await expect(emulator.close()).resolves.toBeUndefined();
  });

  it('fails to start on a port in use', async () => {
    const first = await startEmulator({ quiet: true });
    try {
      await expect(startEmulator({ quiet: true, port: first.port })).rejects.toThrow(/EADDRINUSE/);
    } finally {
      await first.close();
    }
  });

  it.each([{ port: -1 }, { port: 70_000 }, { vendor: 'x-bad' }, { phaseDurationMs: 0 }])(
    'refuses bad options %j',
    async (options) => {
      await expect(startEmulator({ quiet: true, ...options })).rejects.toThrow();
    },
  );
});

/** A list or search answer, as the tests at scale read it. */
interface ListResult {
  resources: { record_data: ScanJobRecord[]; total_cnt: number; total_page_cnt: string };
}

/**
 * What the emulator offers for work that grows: many synthetic scan jobs, a largest page, a
 * latency on every API request, and the gateway's throttle.
 */
describe('the emulator at scale', () => {
  let emulator: Emulator | undefined;
  afterEach(async () => {
    await emulator?.close();
    emulator = undefined;
  });

  const list = async (query: string) => {
    const response = await signedFetch(emulator!, 'GET', `/api/v1/jobs${query}`);
    return { status: response.status, body: (await json(response)) as ListResult };
  };
  const search = async (body: unknown) => {
    const response = await signedFetch(emulator!, 'POST', '/api/v1/jobs/search', {
      body: JSON.stringify(body),
      contentType: 'application/json',
    });
    return { status: response.status, body: (await json(response)) as ListResult };
  };

  it('serves many jobs from its seed, pages of up to 100, and refuses a larger page with 400/901', async () => {
    emulator = await startEmulator({
      quiet: true,
      scanJobs: () => syntheticScanJobs({ count: 250, reserved: 50 }),
    });
    expect(DEFAULT_MAX_LIMIT).toBe(100);
    const third = await list('?page=3&limit=100');
    expect(third.status).toBe(200);
    expect(third.body.resources.total_cnt).toBe(250);
    expect(third.body.resources.total_page_cnt).toBe('3');
    expect(third.body.resources.record_data.map((r) => r.instanceNo).slice(0, 2)).toEqual([
      '3000050',
      '3000049',
    ]);
    expect((await list('?page=1&limit=101')).status).toBe(400);
    const found = await search({ searchType: 'url', searchKeyword: 'load.example', limit: 100 });
    expect(found.body.resources.total_cnt).toBe(250);
    const refused = await search({ searchType: 'url', searchKeyword: 'x', limit: 101 });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ error: { errorCode: 901, message: 'API Call Fail' } });

    // Counted whole, where the request log keeps the latest 2,000.
    expect(emulator.received()).toBe(4);
    emulator.scanJobs.cancel('3000250');
    expect(emulator.scanJobs.get('3000250')?.status).not.toBe('Reservation');
    emulator.scanJobs.replace(syntheticScanJobs({ count: 3, firstInstanceNo: 7 }));
    expect((await list('')).body.resources.record_data.map((r) => r.instanceNo)).toEqual([
      '9',
      '8',
      '7',
    ]);
    emulator.reset();
    expect((await list('')).body.resources.total_cnt).toBe(250);
  });

  it('takes a lower largest page', async () => {
    emulator = await startEmulator({ quiet: true, maxPageSize: 20 });
    expect((await list('?limit=20')).status).toBe(200);
    expect((await list('?limit=21')).status).toBe(400);
  });

  it('holds every API request for its latency, and no control request', async () => {
    emulator = await startEmulator({ quiet: true, latencyMs: 60_000 });
    let answered = false;
    const pending = signedFetch(emulator, 'GET', '/api/v1/jobs').then(
      () => {
        answered = true;
      },
      () => 'dropped',
    );
    const health = await fetch(`${emulator.url}/__emulator/health`);
    expect(health.status).toBe(200);
    expect(answered).toBe(false);
    // Closing drops the held request rather than answering it.
    await emulator.close();
    emulator = undefined;
    expect(await pending).toBe('dropped');
  });

  it('throttles above its rate with 429/410 from the gateway, before the endpoint', async () => {
    emulator = await startEmulator({ quiet: true, rateLimitPerSecond: 3 });
    const answers = await Promise.all(
      Array.from({ length: 6 }, () =>
        signedFetch(emulator!, 'PATCH', '/api/v1/jobs/2810017/cancel'),
      ),
    );
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(3);
    const throttled = answers.find((a) => a.status === 429)!;
    expect(throttled.headers.get('x-platform-apigw-response-origin')).toBe('APIGW');
    expect(await throttled.json()).toMatchObject({ error: { errorCode: '410' } });
    // Exactly one cancel reached the endpoint and worked; the others were refused by it (901) or throttled.
    expect(emulator.scanJobs.get('2810017')?.status).toBe('Cancel');
  });
});
