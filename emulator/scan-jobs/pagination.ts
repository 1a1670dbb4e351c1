import type { ScanJobRecord } from './types.ts';

/** The list shows page links in blocks of ten. */
const PAGE_BLOCK_SIZE = 10;
export const DEFAULT_PAGE = 1;
export const DEFAULT_LIMIT = 20;
/**
 * The largest `limit` a list or search accepts; a larger one is refused like any bad input
 * (400, errorCode 901). The spec names no maximum: 100 is an assumption, a common ceiling for
 * paged APIs, and a client must cope with a lower one (it falls back to the default of 20).
 */
export const DEFAULT_MAX_LIMIT = 100;

export interface ScanJobListResult {
  resources: {
    current_start_page: string;
    current_end_page: string;
    record_data: ScanJobRecord[];
    total_cnt: number;
    total_page_cnt: string;
  };
}

/**
 * One page of `records` with the block of page links around it. With no records the page
 * count is 0 and the block is just page 1; a page past the end is empty, its block kept.
 */
export function paginate(
  records: readonly ScanJobRecord[],
  page: number,
  limit: number,
): ScanJobListResult {
  const offset = (page - 1) * limit;
  return pageResult(records.slice(offset, offset + limit), records.length, page, limit);
}

/** The answer for page `page` whose records (already cut) are `pageRecords` of `total`. */
export function pageResult(
  pageRecords: ScanJobRecord[],
  total: number,
  page: number,
  limit: number,
): ScanJobListResult {
  const totalPages = Math.ceil(total / limit);
  const blockStart = Math.floor((page - 1) / PAGE_BLOCK_SIZE) * PAGE_BLOCK_SIZE + 1;
  const blockEnd = Math.max(blockStart, Math.min(blockStart + PAGE_BLOCK_SIZE - 1, totalPages));
  return {
    resources: {
      current_start_page: String(blockStart),
      current_end_page: String(blockEnd),
      record_data: pageRecords,
      total_cnt: total,
      total_page_cnt: String(totalPages),
    },
  };
}

/**
 * A positive integer query parameter: the default when absent, undefined when present but not
 * exactly one decimal integer of at least 1 (empty, "1.5", "0", "-1", repeated).
 */
export function positiveIntParam(
  query: URLSearchParams,
  name: string,
  fallback: number,
): number | undefined {
  const values = query.getAll(name);
  if (values.length === 0) return fallback;
  const [value] = values;
  if (values.length > 1 || value === undefined || !/^\d+$/.test(value)) return undefined;
  const parsed = Number(value);
  return parsed >= 1 && Number.isSafeInteger(parsed) ? parsed : undefined;
}
