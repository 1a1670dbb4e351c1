import { z } from 'zod';
import { DEFAULT_LIMIT, DEFAULT_PAGE } from './pagination.ts';
import {
  type ScanJobRecord,
  type ScanJobStatus,
  STATUS_BY_CODE,
  UNUSED_STATUS_CODES,
} from './types.ts';

type SearchType = 'memo' | 'url' | '';

export interface SearchCriteria {
  readonly searchType: SearchType;
  readonly keyword: string;
  /** undefined: any status; an empty set: a documented code no job has here. */
  readonly statuses: ReadonlySet<ScanJobStatus> | undefined;
  readonly limit: number;
  readonly page: number;
}

const positiveInt = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER);

const searchBodySchema = z.object({
  searchType: z.enum(['memo', 'url', '']).default(''),
  searchKeyword: z.string().default(''),
  statusCode: z.union([z.null(), z.string(), z.number()]).optional(),
  limit: positiveInt.default(DEFAULT_LIMIT),
  page: positiveInt.default(DEFAULT_PAGE),
});

/** null, absent and "" mean no filter; a documented code as a number or digit string filters. */
function statusesFor(
  statusCode: string | number | null | undefined,
): SearchCriteria['statuses'] | 'invalid' {
  if (statusCode === null || statusCode === undefined || statusCode === '') return undefined;
  const code = String(statusCode);
  if (!/^\d+$/.test(code)) return 'invalid';
  const status = STATUS_BY_CODE[code];
  if (status) return new Set([status]);
  return UNUSED_STATUS_CODES.includes(code) ? new Set() : 'invalid';
}

/** The criteria of a search body, or undefined when the backend would refuse it. */
export function parseSearchBody(body: unknown): SearchCriteria | undefined {
  const parsed = searchBodySchema.safeParse(body);
  if (!parsed.success) return undefined;
  const statuses = statusesFor(parsed.data.statusCode);
  if (statuses === 'invalid') return undefined;
  const { searchType, searchKeyword, limit, page } = parsed.data;
  return { searchType, keyword: searchKeyword.toLowerCase(), statuses, limit, page };
}

function fieldsSearched(record: ScanJobRecord, searchType: SearchType): string[] {
  if (searchType === 'memo') return [record.memo];
  if (searchType === 'url') return [record.start_url];
  return [record.memo, record.start_url];
}

/** Keyword containment is case-insensitive, as a LIKE search on the platform's database is. */
export function matchesSearch(record: ScanJobRecord, criteria: SearchCriteria): boolean {
  if (criteria.statuses && !criteria.statuses.has(record.status)) return false;
  return fieldsSearched(record, criteria.searchType).some((field) =>
    field.toLowerCase().includes(criteria.keyword),
  );
}
