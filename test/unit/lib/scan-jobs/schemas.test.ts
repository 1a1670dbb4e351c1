/**
 * The scan job API's inputs and the part of its answers the page walker reads
 * (lib/scan-jobs/schemas.ts): what each route takes, the defaults a search is sent with, the job
 * id that may go into a path, and list pages as the platform writes them.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type * as z from 'zod/mini';
import { isDotOnlySegment } from '../../../../lib/core/schemas.ts';
import {
  cancelReservedBodySchema,
  instancePathSchema,
  isJobId,
  listQuerySchema,
  listResultSchema,
  searchBodySchema,
} from '../../../../lib/scan-jobs/schemas.ts';

/** The paths of what a schema refuses (none when it takes the value). */
const refused = (schema: z.ZodMiniType, value: unknown) =>
  schema.safeParse(value).error?.issues.map((issue) => issue.path.join('.') || '(root)') ?? [];

describe('GET /jobs: page and limit', () => {
  it('are 1 and 10 when not given', () => {
    expect(listQuerySchema.parse({})).toEqual({ page: 1, limit: 10 });
  });

  it('are read from the query text', () => {
    expect(listQuerySchema.parse({ page: '3', limit: '50' })).toEqual({ page: 3, limit: 50 });
  });

  it("refuses pages (a spelling of the platform's own sample) rather than ignore it", () => {
    expect(refused(listQuerySchema, { pages: '2' })).toEqual(['(root)']);
  });

  it.each(['0', '-1', '1.5', 'x', '', '1000000000'])('refuses a page or a limit of %j', (text) => {
    expect(refused(listQuerySchema, { page: text })).toEqual(['page']);
    expect(refused(listQuerySchema, { limit: text })).toEqual(['limit']);
  });
});

describe("a job's instanceNo in a path", () => {
  it.each(['2810017', 'job_1', 'A-b_9', 'x'.repeat(64)])('takes %s', (id) => {
    expect(isJobId(id)).toBe(true);
    expect(instancePathSchema.parse({ instanceId: id })).toEqual({ instanceId: id });
  });

  it.each(['', '.', '..', '%2e%2e', '1/2', '1?x', '1#x', '1 2', '12.5', 'x'.repeat(65), 'é'])(
    'refuses %j, on the route and from the platform alike',
    (id) => {
      expect(isJobId(id)).toBe(false);
      expect(refused(instancePathSchema, { instanceId: id })).toEqual(['instanceId']);
    },
  );

  it('is a segment sent as it is: nothing to encode, never one that moves the path', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 70 }), (id) => {
        expect(instancePathSchema.safeParse({ instanceId: id }).success).toBe(isJobId(id));
        if (isJobId(id)) {
          expect(encodeURIComponent(id)).toBe(id);
          expect(isDotOnlySegment(id)).toBe(false);
        }
      }),
    );
  });
});

describe('POST /jobs/search', () => {
  it("is sent with the platform's defaults for what the caller left out", () => {
    expect(searchBodySchema.parse({})).toEqual({
      searchType: '',
      searchKeyword: '',
      statusCode: null,
      limit: 10,
      page: 1,
    });
  });

  it('keeps what the caller gave', () => {
    const body = {
      searchType: 'url',
      searchKeyword: 'example.com',
      statusCode: 'Reservation',
      limit: 20,
      page: 2,
    };
    expect(searchBodySchema.parse(body)).toEqual(body);
  });

  it.each([
    [{ pages: 2 }, '(root)'],
    [{ searchType: 'URL' }, 'searchType'],
    [{ searchKeyword: 'x'.repeat(1001) }, 'searchKeyword'],
    [{ statusCode: 3 }, 'statusCode'],
    [{ limit: '5' }, 'limit'],
    [{ limit: 0 }, 'limit'],
    [{ page: 1.5 }, 'page'],
    [{ page: 1_000_000_000 }, 'page'],
  ])('refuses %j', (body, path) => {
    expect(refused(searchBodySchema, body)).toEqual([path]);
  });
});

describe('POST /jobs/cancel-reserved', () => {
  const search = { searchType: 'memo', searchKeyword: 'nightly' } as const;

  it('takes a search, and dryRun and expectAtMost when given', () => {
    expect(cancelReservedBodySchema.parse(search)).toEqual(search);
    expect(cancelReservedBodySchema.parse({ ...search, dryRun: true, expectAtMost: 0 })).toEqual({
      ...search,
      dryRun: true,
      expectAtMost: 0,
    });
  });

  it('needs a keyword: an empty one would match, and cancel, every reserved job', () => {
    expect(refused(cancelReservedBodySchema, { searchType: 'url' })).toEqual(['searchKeyword']);
    expect(refused(cancelReservedBodySchema, { ...search, searchKeyword: '' })).toEqual([
      'searchKeyword',
    ]);
  });

  it('needs a search type, url or memo: not the empty one a plain search takes', () => {
    expect(refused(cancelReservedBodySchema, { searchKeyword: 'x' })).toEqual(['searchType']);
    expect(refused(cancelReservedBodySchema, { ...search, searchType: '' })).toEqual([
      'searchType',
    ]);
  });

  it.each([
    [{ dryRun: 'true' }, 'dryRun'],
    [{ expectAtMost: -1 }, 'expectAtMost'],
    [{ expectAtMost: 2.5 }, 'expectAtMost'],
    [{ expectAtMost: 1_000_001 }, 'expectAtMost'],
    [{ limit: 10 }, '(root)'],
  ])('refuses %j', (extra, path) => {
    expect(refused(cancelReservedBodySchema, { ...search, ...extra })).toEqual([path]);
  });
});

describe('a list or search page as the walker reads it', () => {
  it('reads the jobs and the page count, keeping every other field of a job as sent', () => {
    const page = listResultSchema.parse({
      resources: {
        record_data: [
          { instanceNo: '2810017', status: 'Reservation', memo: 'nightly', startUrl: 'x' },
          { instanceNo: 2810018, status: null },
          { instanceNo: '2810019' },
        ],
        total_page_cnt: '3',
      },
      returnCode: 0,
    });
    expect(page.resources.record_data).toEqual([
      { instanceNo: '2810017', status: 'Reservation', memo: 'nightly', startUrl: 'x' },
      { instanceNo: 2810018, status: null },
      { instanceNo: '2810019' },
    ]);
    expect(page.resources.total_page_cnt).toBe('3');
    expect(listResultSchema.parse({ resources: { record_data: [] } }).resources).toEqual({
      record_data: [],
    });
  });

  it('is no page without its jobs, or with a job without an instanceNo', () => {
    expect(listResultSchema.safeParse({ resources: {} }).success).toBe(false);
    expect(listResultSchema.safeParse({ record_data: [] }).success).toBe(false);
    expect(
      listResultSchema.safeParse({ resources: { record_data: [{ status: 'Progress' }] } }).success,
    ).toBe(false);
  });
});
