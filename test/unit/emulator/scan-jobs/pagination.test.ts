import { describe, expect, it } from 'vitest';
import { demoScanJobs } from '../../../../emulator/index.ts';
import { paginate, positiveIntParam } from '../../../../emulator/scan-jobs/pagination.ts';

describe('pagination', () => {
  const records = demoScanJobs();

  it.each([
    [1, 10, '1', '3', '3'],
    [3, 10, '1', '3', '3'],
    [10, 1, '1', '10', '25'],
    [11, 1, '11', '20', '25'],
    [21, 1, '21', '25', '25'],
    [30, 1, '21', '25', '25'],
  ])('page %i at limit %i spans block %s-%s of %s pages', (page, limit, start, end, totalPages) => {
    const { resources } = paginate(records, page, limit);

    expect(resources).toMatchObject({
      current_start_page: start,
      current_end_page: end,
      total_page_cnt: totalPages,
      total_cnt: 25,
    });
  });

  it.each([
    ['', 7],
    ['page=3', 3],
    ['page=003', 3],
  ])('reads "%s" as page %i', (query, expected) => {
    expect(positiveIntParam(new URLSearchParams(query), 'page', 7)).toBe(expected);
  });

  it.each([
    'page=0',
    'page=-2',
    'page=2.0',
    'page=',
    'page=1e3',
    'page=99999999999999999999',
    'page=1&page=1',
  ])('refuses "%s"', (query) => {
    expect(positiveIntParam(new URLSearchParams(query), 'page', 1)).toBeUndefined();
  });
});
