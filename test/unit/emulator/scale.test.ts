/**
 * What the emulator offers for work that grows: many synthetic scan jobs, a largest page, a
 * latency on every API request, and the gateway's throttle.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { RateLimiter } from '../../../emulator/gateway/rate-limit.js';
import {
  DEFAULT_MAX_LIMIT,
  type Emulator,
  type ScanJobRecord,
  startEmulator,
  syntheticScanJobs,
} from '../../../emulator/index.js';
import { json, signedFetch } from './helpers.js';

interface ListResult {
  resources: { record_data: ScanJobRecord[]; total_cnt: number; total_page_cnt: string };
}

describe('syntheticScanJobs', () => {
  it('makes count jobs, oldest first, with the reserved ones spread over the list', () => {
    const jobs = syntheticScanJobs({ count: 1000, reserved: 100 });
    expect(jobs).toHaveLength(1000);
    expect(jobs[0]?.instanceNo).toBe('3000001');
    expect(jobs[999]?.instanceNo).toBe('3001000');
    const reserved = jobs.filter((job) => job.status === 'Reservation');
    expect(reserved).toHaveLength(100);
    // One in every ten: each block of 100 jobs holds 10 reserved ones.
    for (let block = 0; block < 10; block++) {
      const slice = jobs.slice(block * 100, block * 100 + 100);
      expect(slice.filter((job) => job.status === 'Reservation')).toHaveLength(10);
    }
    expect(new Set(jobs.map((job) => job.instanceNo)).size).toBe(1000);
    expect(jobs.every((job) => job.start_url === 'https://load.example.com/')).toBe(true);
  });

  it('is deterministic, reserves a quarter by default, and copes with all or none', () => {
    expect(syntheticScanJobs({ count: 40 })).toEqual(syntheticScanJobs({ count: 40 }));
    const count = (jobs: ScanJobRecord[]) => jobs.filter((j) => j.status === 'Reservation').length;
    expect(count(syntheticScanJobs({ count: 40 }))).toBe(10);
    expect(count(syntheticScanJobs({ count: 7, reserved: 7 }))).toBe(7);
    expect(count(syntheticScanJobs({ count: 7, reserved: 0 }))).toBe(0);
  });
});

describe('RateLimiter', () => {
  it('accepts a burst of one second, then one request per 1000/perSecond ms', () => {
    let now = 0;
    const limiter = new RateLimiter(10, () => now);
    for (let i = 0; i < 10; i++) expect(limiter.take()).toBe(true);
    expect(limiter.take()).toBe(false);
    now += 99;
    expect(limiter.take()).toBe(false);
    now += 1;
    expect(limiter.take()).toBe(true);
    expect(limiter.take()).toBe(false);
    limiter.refill();
    expect(limiter.take()).toBe(true);
  });
});

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
