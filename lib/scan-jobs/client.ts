/**
 * The scan job API's client: signed calls to list, search, cancel, stop and report, the page
 * walker, and the cancel-reserved workflow. Upstream success bodies are returned unchanged by
 * the handlers.
 */
import { requiredSetting } from '../core/config.js';
import { toServiceError, UnexpectedError } from '../core/errors.js';
import { parseJsonOrUndefined } from '../core/json.js';
import type { Logger } from '../core/log.js';
import { perRuntime } from '../core/per-runtime.js';
import type { TimeBudget } from '../core/time-budget.js';
import type { Runtime } from '../runtime.js';
import { credentialsFrom } from '../secrets/credentials.js';
import type { SecretStore } from '../secrets/store.js';
import type { UpstreamAnswer, UpstreamClient } from '../upstream/client.js';
import type { CredentialSource } from '../upstream/gateway/credential-refresh.js';
import { SignedGateway, type SigningKeys } from '../upstream/gateway/signed-gateway.js';
import {
  type CancelReservedBody,
  type ListedJob,
  type ListQuery,
  listResultSchema,
  type SearchBody,
} from './schemas.js';

const API = '/api/v1/jobs';

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

interface ScanJobsClientOptions {
  /** `{base_url}` of the scan job API, without `/api/v1`. */
  readonly baseUrl: URL;
  readonly vendor: string;
  readonly credentials: CredentialSource<SigningKeys>;
  readonly http: UpstreamClient;
  readonly now?: () => number;
  readonly log?: Logger;
}

export class ScanJobsClient {
  private readonly gateway: SignedGateway;

  constructor(options: ScanJobsClientOptions) {
    this.gateway = new SignedGateway({ ...options, service: 'scan-jobs' });
  }

  list(query: ListQuery, budget: TimeBudget): Promise<UpstreamAnswer> {
    const params: [string, string][] = [
      ['page', String(query.page)],
      ['limit', String(query.limit)],
    ];
    return this.gateway.call({ method: 'GET', path: API, query: params }, budget);
  }

  search(body: SearchBody, budget: TimeBudget): Promise<UpstreamAnswer> {
    // A search only reads, so it may be retried like a GET.
    return this.gateway.call(
      { method: 'POST', path: `${API}/search`, json: body, idempotent: true },
      budget,
    );
  }

  cancel(instanceId: string, budget: TimeBudget): Promise<UpstreamAnswer> {
    return this.gateway.call({ method: 'PATCH', path: jobPath(instanceId, 'cancel') }, budget);
  }

  stop(instanceId: string, budget: TimeBudget): Promise<UpstreamAnswer> {
    return this.gateway.call({ method: 'PATCH', path: jobPath(instanceId, 'stop') }, budget);
  }

  report(instanceId: string, budget: TimeBudget): Promise<UpstreamAnswer> {
    return this.gateway.call({ method: 'GET', path: jobPath(instanceId, 'report') }, budget);
  }

  /** Every page of the job list, one array of jobs per page, in the platform's order. */
  listEveryPage(budget: TimeBudget, pageSize = WALK_PAGE_SIZE): AsyncGenerator<ListedJob[]> {
    return walkPages((page) => this.list({ page, limit: pageSize }, budget));
  }

  /** Every reserved job the search finds, across all pages, in the order found. */
  async findReserved(criteria: CancelReservedBody, budget: TimeBudget): Promise<string[]> {
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
    budget: TimeBudget,
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
  fetchPage: (page: number) => Promise<UpstreamAnswer>,
): AsyncGenerator<ListedJob[]> {
  for (let page = 1; page <= MAX_WALK_PAGES; page++) {
    const result = parseListResult(await fetchPage(page));
    yield result.resources.record_data;
    const pageCount = Number(result.resources.total_page_cnt ?? 0);
    if (result.resources.record_data.length === 0 || !(page < pageCount)) break;
  }
}

function parseListResult(response: UpstreamAnswer) {
  const parsed = listResultSchema.safeParse(parseJsonOrUndefined(response.body.toString('utf8')));
  if (!parsed.success) {
    throw new UnexpectedError(new Error('The list or search answer is not a scan job list'));
  }
  return parsed.data;
}

/** The signing keys of the secret: its IAM keys, and the gateway API key when it has one. */
export function signingKeysFrom(secrets: SecretStore): CredentialSource<SigningKeys> {
  return credentialsFrom(secrets, (secret) => {
    if (!secret.iam) throw new UnexpectedError(new Error('The secret has no iam credentials'));
    return { ...secret.iam, apiKey: secret.apiKey };
  });
}

/** The container's scan job client: signed calls under SCAN_BASE_URL. */
export const scanJobsClientOf = perRuntime(
  (runtime: Runtime) =>
    new ScanJobsClient({
      baseUrl: requiredSetting(runtime.config.scanBaseUrl, 'SCAN_BASE_URL'),
      vendor: runtime.config.gatewayVendor,
      credentials: signingKeysFrom(runtime.secretsFor('signing')),
      http: runtime.http,
      now: runtime.now,
      log: runtime.log,
    }),
);
