/**
 * The scan job API's inputs (the routes validate callers with them) and the part of its list and
 * search answers that the page walker reads.
 */
import * as z from 'zod/mini';
import { intText } from '../core/schemas.ts';

const MAX_INT = 999_999_999;
const positiveIntText = intText(1, MAX_INT, 'expected a positive integer');
const positiveInt = z
  .int('expected a positive integer')
  .check(z.positive('expected a positive integer'), z.lte(MAX_INT, `expected at most ${MAX_INT}`));

// Strict: `pages` (a spelling in the platform's own sample) is refused, not silently ignored.
export const listQuerySchema = z.strictObject({
  page: z._default(positiveIntText, 1),
  limit: z._default(positiveIntText, 10),
});
export type ListQuery = z.infer<typeof listQuerySchema>;

/** A scan job's instanceNo as it may go into a path: no dots, no slash, nothing to encode. */
const JOB_ID = /^[A-Za-z0-9_-]{1,64}$/;

export const instancePathSchema = z.object({
  instanceId: z
    .string()
    .check(z.regex(JOB_ID, 'expected a job instanceNo (letters, digits, _ or -)')),
});
export type InstancePath = z.infer<typeof instancePathSchema>;

/**
 * Whether an instanceNo, from a caller or from the platform's own answer, may go into a path:
 * the same pattern as instancePathSchema. An id from the platform that fails it is skipped and
 * reported, never sent.
 */
export function isJobId(value: string): boolean {
  return JOB_ID.test(value);
}

export const searchBodySchema = z.strictObject({
  searchType: z._default(z.enum(['memo', 'url', '']), ''),
  searchKeyword: z._default(z.string().check(z.maxLength(1000)), ''),
  statusCode: z._default(z.nullable(z.string()), null),
  limit: z._default(positiveInt, 10),
  page: z._default(positiveInt, 1),
});
export type SearchBody = z.infer<typeof searchBodySchema>;

/** The most reserved jobs one cancel-reserved may be told to expect (a walk reads 1000 pages at most). */
const MAX_EXPECTED = 1_000_000;

export const cancelReservedBodySchema = z.strictObject({
  searchType: z.enum(['url', 'memo']),
  // Required and non-empty: an empty keyword would match, and cancel, every reserved job.
  searchKeyword: z
    .string()
    .check(z.minLength(1, 'expected a non-empty keyword'), z.maxLength(1000)),
  /** true: answer the reserved jobs it would cancel, and cancel nothing. */
  dryRun: z.optional(z.boolean('expected true or false')),
  /**
   * The most reserved jobs the caller means to cancel: when the search finds more, nothing is
   * cancelled and the answer is 409/`100` with the count found.
   */
  expectAtMost: z.optional(
    z
      .int('expected a whole number of jobs')
      .check(
        z.gte(0, 'expected 0 or more'),
        z.lte(MAX_EXPECTED, `expected at most ${MAX_EXPECTED}`),
      ),
  ),
});
export type CancelReservedBody = z.infer<typeof cancelReservedBodySchema>;

/** One job of a list or search page: the fields every walker needs; the others kept as sent. */
const listedJobSchema = z.looseObject({
  instanceNo: z.union([z.string(), z.number()]),
  status: z.nullish(z.string()),
});
export type ListedJob = z.infer<typeof listedJobSchema>;

/** The part of a list or search result the page walker reads. */
export const listResultSchema = z.object({
  resources: z.object({
    record_data: z.array(listedJobSchema),
    total_page_cnt: z.optional(z.union([z.string(), z.number()])),
  }),
});

/** The platform's documented default page size: any gateway following the spec serves it. */
export const DEFAULT_PAGE_SIZE = 20;
