/**
 * The scan job API: input schemas, the upstream calls, and the
 * cancel-reserved workflow. Upstream success bodies are returned unchanged by the handlers.
 */
import * as z from 'zod/mini';
import { requiredSetting } from '../core/config.js';
import { toServiceError, UnexpectedError } from '../core/errors.js';
import { parseJsonOrUndefined } from '../core/json.js';
import { perRuntime } from '../core/per-runtime.js';
import { intText } from '../core/schemas.js';
import type { CallBudget, UpstreamResponse } from '../upstream/client.js';
import { SignedGateway } from '../upstream/gateway/signed-gateway.js';

const API = '/api/v1/jobs';

const MAX_INT = 999_999_999;
const positiveIntText = intText(1, MAX_INT, 'expected a positive integer');
const positiveInt = z.int().check(z.positive('expected a positive integer'), z.lte(MAX_INT));

// Strict: `pages` (a spelling in the platform's own sample) is refused, not silently ignored.
export const listQuerySchema = z.strictObject({
  page: z._default(positiveIntText, 1),
  limit: z._default(positiveIntText, 10),
});
export type ListQuery = z.infer<typeof listQuerySchema>;

export const instancePathSchema = z.object({
  instanceId: z
    .string()
    .check(z.regex(/^[A-Za-z0-9_-]{1,64}$/, 'expected a job instanceNo (letters, digits, _ or -)')),
});
export type InstancePath = z.infer<typeof instancePathSchema>;

export const searchBodySchema = z.strictObject({
  searchType: z._default(z.enum(['memo', 'url', '']), ''),
  searchKeyword: z._default(z.string().check(z.maxLength(1000)), ''),
  statusCode: z._default(z.nullable(z.string()), null),
  limit: z._default(positiveInt, 10),
  page: z._default(positiveInt, 1),
});
export type SearchBody = z.infer<typeof searchBodySchema>;

export const cancelReservedBodySchema = z.strictObject({
  searchType: z.enum(['url', 'memo']),
  // Required and non-empty: an empty keyword would match, and cancel, every reserved job.
  searchKeyword: z
    .string()
    .check(z.minLength(1, 'expected a non-empty keyword'), z.maxLength(1000)),
});
export type CancelReservedBody = z.infer<typeof cancelReservedBodySchema>;

/** One job of a list or search page: the fields every walker needs; the others kept as sent. */
const listedJobSchema = z.looseObject({
  instanceNo: z.union([z.string(), z.number()]),
  status: z.nullish(z.string()),
});
export type ListedJob = z.infer<typeof listedJobSchema>;

/** The part of a list or search result the page walker reads. */
const listResultSchema = z.object({
  resources: z.object({
    record_data: z.array(listedJobSchema),
    total_page_cnt: z.optional(z.union([z.string(), z.number()])),
  }),
});

const RESERVED_STATUS = 'Reservation';
/** Page size used when walking every page of a search. */
// 20 is the platform's documented default page size, so any gateway following it accepts it.
const WALK_PAGE_SIZE = 20;
/** A guard against an upstream whose page count never ends. */
const MAX_WALK_PAGES = 1000;

interface CancelReservedResult {
  cancelled: string[];
  failed: { instanceNo: string; error: { errorCode: string; message: string } }[];
}

class ScanJobs {
  constructor(private readonly gateway: SignedGateway) {}

  list(query: ListQuery, budget: CallBudget): Promise<UpstreamResponse> {
    const params: [string, string][] = [
      ['page', String(query.page)],
      ['limit', String(query.limit)],
    ];
    return this.gateway.call({ method: 'GET', path: API, query: params }, budget);
  }

  search(body: SearchBody, budget: CallBudget): Promise<UpstreamResponse> {
    // A search only reads, so it may be retried like a GET.
    return this.gateway.call(
      { method: 'POST', path: `${API}/search`, json: body, idempotent: true },
      budget,
    );
  }

  cancel(instanceId: string, budget: CallBudget): Promise<UpstreamResponse> {
    return this.gateway.call({ method: 'PATCH', path: jobPath(instanceId, 'cancel') }, budget);
  }

  stop(instanceId: string, budget: CallBudget): Promise<UpstreamResponse> {
    return this.gateway.call({ method: 'PATCH', path: jobPath(instanceId, 'stop') }, budget);
  }

  report(instanceId: string, budget: CallBudget): Promise<UpstreamResponse> {
    return this.gateway.call({ method: 'GET', path: jobPath(instanceId, 'report') }, budget);
  }

  /** Every page of the job list, one array of jobs per page, in the platform's order. */
  listEveryPage(budget: CallBudget, pageSize = WALK_PAGE_SIZE): AsyncGenerator<ListedJob[]> {
    return walkPages((page) => this.list({ page, limit: pageSize }, budget));
  }

  /** Every reserved job the search finds, across all pages, in the order found. */
  async findReserved(criteria: CancelReservedBody, budget: CallBudget): Promise<string[]> {
    const found = new Set<string>();
    const pages = walkPages((page) =>
      this.search({ ...criteria, statusCode: null, limit: WALK_PAGE_SIZE, page }, budget),
    );
    for await (const records of pages) {
      for (const record of records) {
        if (record.status === RESERVED_STATUS) found.add(String(record.instanceNo));
      }
    }
    return [...found];
  }

  /** Searches every page, then cancels each reserved job; one failure does not stop the rest. */
  async cancelReserved(
    criteria: CancelReservedBody,
    budget: CallBudget,
  ): Promise<CancelReservedResult> {
    const reserved = await this.findReserved(criteria, budget);
    const result: CancelReservedResult = { cancelled: [], failed: [] };
    for (const instanceNo of reserved) {
      try {
        await this.cancel(instanceNo, budget);
        result.cancelled.push(instanceNo);
      } catch (thrown) {
        const error = toServiceError(thrown);
        result.failed.push({
          instanceNo,
          error: { errorCode: error.code, message: error.message },
        });
      }
    }
    return result;
  }
}

function jobPath(instanceId: string, action: 'cancel' | 'stop' | 'report'): string {
  return `${API}/${encodeURIComponent(instanceId)}/${action}`;
}

/**
 * The one page walker of lists and searches: fetches page 1, 2, ... and yields each page's
 * jobs, until an empty page or the last page the answer announces (or MAX_WALK_PAGES).
 */
async function* walkPages(
  fetchPage: (page: number) => Promise<UpstreamResponse>,
): AsyncGenerator<ListedJob[]> {
  for (let page = 1; page <= MAX_WALK_PAGES; page++) {
    const result = parseListResult(await fetchPage(page));
    yield result.resources.record_data;
    const pageCount = Number(result.resources.total_page_cnt ?? 0);
    if (result.resources.record_data.length === 0 || !(page < pageCount)) break;
  }
}

function parseListResult(response: UpstreamResponse) {
  const parsed = listResultSchema.safeParse(parseJsonOrUndefined(response.body.toString('utf8')));
  if (!parsed.success) {
    throw new UnexpectedError(new Error('The list or search answer is not a scan job list'));
  }
  return parsed.data;
}

/** The container's scan job client: signed calls under SCAN_BASE_URL. */
export const scanJobsOf = perRuntime(
  (runtime) =>
    new ScanJobs(
      new SignedGateway({
        baseUrl: requiredSetting(runtime.config.scanBaseUrl, 'SCAN_BASE_URL'),
        vendor: runtime.config.gatewayVendor,
        secrets: runtime.secrets,
        http: runtime.http,
        now: runtime.now,
        log: runtime.log,
      }),
    ),
);
