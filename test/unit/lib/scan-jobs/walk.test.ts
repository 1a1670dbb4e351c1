/** The page walk with the platform faked: page size fallback, throttled pages, time. */
import { describe, expect, it } from 'vitest';
import { UpstreamError } from '../../../../lib/core/errors.ts';
import { WalkPlan } from '../../../../lib/core/walk-plan.ts';
import { PageWalk } from '../../../../lib/scan-jobs/walk.ts';
import type { AttemptObserver, UpstreamAnswer } from '../../../../lib/upstream/client.ts';
import { testCall } from '../../../helpers/call-context.ts';

const SETTINGS = { pageSize: 100, pageConcurrency: 4, cancelConcurrency: 4 };
const THROTTLED = { kind: 'answer', status: 429, errorCode: '410', origin: 'gateway' } as const;

/** A list of `total` jobs; `onFetch` may refuse a call (return an error to throw). */
function fakeList(total: number, onFetch: (page: number, limit: number) => Error | undefined) {
  const fetched: [number, number][] = [];
  const fetch = async (
    page: number,
    limit: number,
    onAttempt: AttemptObserver,
  ): Promise<UpstreamAnswer> => {
    fetched.push([page, limit]);
    const error = onFetch(page, limit);
    if (error) {
      if (error instanceof UpstreamError && error.status === 429) onAttempt(THROTTLED, 0);
      throw error;
    }
    const record_data = Array.from(
      { length: Math.max(0, Math.min(limit, total - (page - 1) * limit)) },
      (_, n) => ({ instanceNo: String((page - 1) * limit + n + 1), status: 'Complete' }),
    );
    const body = { resources: { record_data, total_page_cnt: String(Math.ceil(total / limit)) } };
    return { status: 200, headers: {}, body: Buffer.from(JSON.stringify(body)), attempts: 1 };
  };
  return { fetch, fetched };
}

const remembered = () => {
  let size: number | undefined;
  return {
    get: () => size,
    set: (value: number) => {
      size = value;
    },
  };
};

describe('PageWalk', () => {
  it('asks again at 20 when the platform refuses 100, and the container keeps 20', async () => {
    const refuses = (_page: number, limit: number) =>
      limit > 50
        ? new UpstreamError({ status: 400, code: '901', message: 'API Call Fail' })
        : undefined;
    const list = fakeList(45, refuses);
    const acceptedSize = remembered();
    const walk = new PageWalk({
      fetch: list.fetch,
      plan: new WalkPlan(testCall(), { reserveMs: 0 }),
      settings: SETTINGS,
      acceptedSize,
    });
    const first = await walk.first();
    expect(first).toMatchObject({ page: 1, pageCount: 3, pageSize: 20 });
    const rest = await walk.read([2, 3]);
    expect(rest.pages.map((p) => p.jobs.length)).toEqual([20, 5]);
    expect(list.fetched).toEqual([
      [1, 100],
      [1, 20],
      [2, 20],
      [3, 20],
    ]);
    expect(acceptedSize.get()).toBe(20);
    const again = new PageWalk({
      fetch: list.fetch,
      plan: new WalkPlan(testCall(), { reserveMs: 0 }),
      settings: SETTINGS,
      acceptedSize,
    });
    expect((await again.first()).pageSize).toBe(20);
  });

  it('does not fall back on another error', async () => {
    const list = fakeList(10, () => new UpstreamError({ status: 401, code: '200', message: 'x' }));
    const walk = new PageWalk({
      fetch: list.fetch,
      plan: new WalkPlan(testCall(), { reserveMs: 0 }),
      settings: SETTINGS,
      acceptedSize: remembered(),
    });
    await expect(walk.first()).rejects.toMatchObject({ status: 401 });
    expect(list.fetched).toHaveLength(1);
  });

  it('sends a throttled page again later, slowing down, and reports a page that fails for good', async () => {
    let throttles = 2;
    const list = fakeList(500, (page) => {
      if (page === 3 && throttles-- > 0) {
        return new UpstreamError({ status: 429, code: '410', message: 'Throttle Limited' });
      }
      if (page === 4)
        return new UpstreamError({ status: 503, code: '500', message: 'Endpoint Error' });
      return undefined;
    });
    const walk = new PageWalk({
      fetch: list.fetch,
      plan: new WalkPlan(testCall(), { reserveMs: 0 }),
      settings: SETTINGS,
      acceptedSize: remembered(),
    });
    await walk.first();
    const rest = await walk.read([2, 3, 4, 5]);
    expect(rest.pages.map((p) => p.page)).toEqual([2, 3, 5]);
    expect(rest.unread).toEqual([4]);
    expect(rest.errors.map((e) => e.code)).toEqual(['500']);
    expect(walk.throttles).toBe(2);
    expect(list.fetched.filter(([page]) => page === 3)).toHaveLength(3);
  });

  it('reads no page the time left cannot cover', async () => {
    const list = fakeList(500, () => undefined);
    let remaining = 60_000;
    const plan = new WalkPlan(testCall({ remainingMs: () => remaining }), { reserveMs: 1000 });
    const walk = new PageWalk({
      fetch: list.fetch,
      plan,
      settings: SETTINGS,
      acceptedSize: remembered(),
    });
    await walk.first();
    remaining = 1000;
    const rest = await walk.read([2, 3]);
    expect(rest).toEqual({ pages: [], unread: [2, 3], errors: [] });
  });
});
