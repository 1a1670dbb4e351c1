/**
 * cancel-reserved's workflow with the scan job calls faked: what it answers when pages or
 * cancels fail, and that nothing after the first cancel turns into an error.
 */
import { describe, expect, it } from 'vitest';
import type { CallContext } from '../../../../lib/core/call-context.ts';
import {
  TooManyMatchesError,
  UpstreamError,
  UpstreamTimeoutError,
} from '../../../../lib/core/errors.ts';
import {
  type CancelReservedCalls,
  type CancelReservedResult,
  cancelReserved as cancelReservedAnswer,
  jobIdsOf,
} from '../../../../lib/scan-jobs/cancel-reserved.ts';
import type { SearchBody } from '../../../../lib/scan-jobs/schemas.ts';
import type { AttemptObserver, UpstreamAnswer } from '../../../../lib/upstream/client.ts';
import { testCall } from '../../../helpers/call-context.ts';

const CRITERIA = { searchType: 'url', searchKeyword: 'load' } as const;
const SETTINGS = { pageSize: 100, pageConcurrency: 4, cancelConcurrency: 4 };

const answer = (value: unknown): UpstreamAnswer => ({
  status: 200,
  headers: {},
  body: Buffer.from(JSON.stringify(value)),
  attempts: 1,
});

/** A platform of `pages` pages of `perPage` reserved jobs, ids `p<page>-<n>`. */
function fakePlatform(pages: number, perPage: number) {
  const cancels: string[] = [];
  const calls: CancelReservedCalls & {
    failPage?: (page: number) => Error | undefined;
    failCancel?: (id: string) => Error | undefined;
  } = {
    async search(body: SearchBody, _call: CallContext, _onAttempt: AttemptObserver) {
      const failure = calls.failPage?.(body.page);
      if (failure) throw failure;
      const record_data = Array.from({ length: perPage }, (_, n) => ({
        instanceNo: `p${body.page}-${n}`,
        status: 'Reservation',
      }));
      return answer({ resources: { record_data, total_page_cnt: String(pages) } });
    },
    async cancel(id: string) {
      cancels.push(id);
      const failure = calls.failCancel?.(id);
      if (failure) throw failure;
      return answer({ returnCode: '0' });
    },
    searchPageSize: { get: () => undefined, set: () => {} },
  };
  return { calls, cancels };
}

/** A call that is not a dry run: its answer is a result. */
const cancelReserved = async (
  ...args: Parameters<typeof cancelReservedAnswer>
): Promise<CancelReservedResult> => {
  const answer = await cancelReservedAnswer(...args);
  if ('dryRun' in answer) throw new Error('a dry run answered');
  return answer;
};

describe('cancelReserved', () => {
  it('goes on with the pages it could read, cancels what they hold, and says it is not complete', async () => {
    const { calls, cancels } = fakePlatform(4, 3);
    calls.failPage = (page) =>
      page === 3 ? new UpstreamError({ status: 500, code: '900', message: 'x' }) : undefined;
    const result = await cancelReserved(calls, CRITERIA, testCall(), SETTINGS);
    expect(result.complete).toBe(false);
    expect(result.cancelled).toHaveLength(9);
    expect(result.cancelled.some((id) => id.startsWith('p3-'))).toBe(false);
    expect(cancels).toHaveLength(9);
  });

  it('throws, having sent nothing, when the first page cannot be read', async () => {
    const { calls, cancels } = fakePlatform(2, 3);
    calls.failPage = (page) => (page === 1 ? new UpstreamTimeoutError() : undefined);
    await expect(cancelReserved(calls, CRITERIA, testCall(), SETTINGS)).rejects.toThrow(
      UpstreamTimeoutError,
    );
    expect(cancels).toEqual([]);
  });

  it('reports every failed cancel, timeouts and unexpected errors included, and never throws after a cancel was sent', async () => {
    const { calls } = fakePlatform(1, 6);
    calls.failCancel = (id) =>
      id === 'p1-1'
        ? new UpstreamTimeoutError()
        : id === 'p1-2'
          ? new TypeError('a bug')
          : id === 'p1-3'
            ? new UpstreamError({ status: 400, code: '901', message: 'API Call Fail' })
            : undefined;
    const result = await cancelReserved(calls, CRITERIA, testCall(), SETTINGS);
    expect(result.complete).toBe(true);
    expect(result.cancelled.sort()).toEqual(['p1-0', 'p1-4', 'p1-5']);
    expect(result.failed).toEqual(
      expect.arrayContaining([
        { instanceNo: 'p1-1', error: { errorCode: '510', message: 'Endpoint Timeout' } },
        { instanceNo: 'p1-2', error: { errorCode: '900', message: 'Unexpected Error' } },
        { instanceNo: 'p1-3', error: { errorCode: '901', message: 'API Call Fail' } },
      ]),
    );
    expect(result.remaining).toEqual([]);
  });

  it('sends nothing when the time left cannot cover a cancel, and hands every job back', async () => {
    const { calls, cancels } = fakePlatform(1, 5);
    // 1.2 s left: under the 1 s reserve plus a call's need.
    const result = await cancelReserved(
      calls,
      CRITERIA,
      testCall({ remainingMs: () => 1200 }),
      SETTINGS,
    );
    expect(cancels).toEqual([]);
    expect(result).toMatchObject({ cancelled: [], failed: [], complete: false });
    expect(result.remaining).toHaveLength(5);
  });

  it('names every job it cancelled or failed for the request log line', async () => {
    const { calls } = fakePlatform(1, 3);
    calls.failCancel = (id) => (id === 'p1-1' ? new UpstreamTimeoutError() : undefined);
    const result = await cancelReserved(calls, CRITERIA, testCall(), SETTINGS);
    expect(jobIdsOf(result).sort()).toEqual(['p1-0', 'p1-1', 'p1-2']);
  });
});

describe('cancelReserved, guarded', () => {
  it('answers a dry run with the reserved jobs of every page, and sends no cancel', async () => {
    const { calls, cancels } = fakePlatform(3, 2);
    const answer = await cancelReservedAnswer(
      calls,
      { ...CRITERIA, dryRun: true },
      testCall(),
      SETTINGS,
    );
    expect(answer).toEqual({
      dryRun: true,
      reserved: ['p1-0', 'p1-1', 'p2-0', 'p2-1', 'p3-0', 'p3-1'],
      failed: [],
      complete: true,
    });
    expect(cancels).toEqual([]);
    expect(jobIdsOf(answer)).toEqual([]);
  });

  it('says in a dry run which jobs a call could not send, and that a page was not read', async () => {
    const { calls } = fakePlatform(2, 1);
    const search = calls.search.bind(calls);
    calls.search = async (body, budget, onAttempt) => {
      if (body.page === 2) throw new UpstreamError({ status: 500, code: '900', message: 'x' });
      const answered = await search(body, budget, onAttempt);
      const parsed = JSON.parse(answered.body.toString()) as {
        resources: { record_data: unknown[] };
      };
      parsed.resources.record_data.push({ instanceNo: '../1', status: 'Reservation' });
      return answer(parsed);
    };
    const dry = await cancelReservedAnswer(
      calls,
      { ...CRITERIA, dryRun: true },
      testCall(),
      SETTINGS,
    );
    expect(dry).toMatchObject({ dryRun: true, reserved: ['p1-0'], complete: false });
    expect(dry.failed.map((failure) => failure.instanceNo)).toEqual(['../1']);
  });

  it('refuses with 409/100 and the count found, sending no cancel, when more jobs match than expected', async () => {
    const { calls, cancels } = fakePlatform(2, 3);
    for (const dryRun of [false, true]) {
      const refusal = await cancelReservedAnswer(
        calls,
        { ...CRITERIA, expectAtMost: 5, dryRun },
        testCall(),
        SETTINGS,
      ).catch((error: unknown) => error);
      expect(refusal).toBeInstanceOf(TooManyMatchesError);
      const error = refusal as TooManyMatchesError;
      expect([error.status, error.code, error.found]).toEqual([409, '100', 6]);
      expect(error.details).toEqual([
        {
          path: 'expectAtMost',
          issue: 'the search found 6 reserved jobs, more than 5; nothing was cancelled',
        },
      ]);
    }
    expect(cancels).toEqual([]);
  });

  it('sends the platform the search fields only, never dryRun or expectAtMost', async () => {
    const { calls } = fakePlatform(2, 3);
    const bodies: SearchBody[] = [];
    const search = calls.search.bind(calls);
    calls.search = async (body, call, onAttempt) => {
      bodies.push(body);
      return search(body, call, onAttempt);
    };
    for (const dryRun of [false, true]) {
      await cancelReservedAnswer(
        calls,
        { ...CRITERIA, expectAtMost: 6, dryRun },
        testCall(),
        SETTINGS,
      );
    }
    expect(bodies).toHaveLength(4);
    for (const body of bodies) {
      expect(Object.keys(body).sort()).toEqual([
        'limit',
        'page',
        'searchKeyword',
        'searchType',
        'statusCode',
      ]);
    }
  });

  it('cancels as usual when the search finds no more than expected', async () => {
    const { calls, cancels } = fakePlatform(2, 3);
    const result = await cancelReserved(
      calls,
      { ...CRITERIA, expectAtMost: 6 },
      testCall(),
      SETTINGS,
    );
    expect(result.cancelled).toHaveLength(6);
    expect(cancels).toHaveLength(6);
    const none = fakePlatform(0, 0);
    const empty = await cancelReserved(
      none.calls,
      { ...CRITERIA, expectAtMost: 0 },
      testCall(),
      SETTINGS,
    );
    expect(empty).toEqual({ cancelled: [], failed: [], remaining: [], complete: true });
  });
});
