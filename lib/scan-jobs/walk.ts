/**
 * The page walk of a job list or a search: the first page alone (it gives the page count and
 * settles the page size), then the other pages several at a time through a bounded pool whose
 * limit halves when the gateway throttles. Every call keeps its own deadline inside the walk's
 * time plan, and no page is asked for when the time left cannot cover it.
 */
import { AdaptiveLimit, runBounded } from '../core/bounded-pool.ts';
import type { CallContext } from '../core/call-context.ts';
import type { BulkSettings } from '../core/config.ts';
import {
  ServiceError,
  toServiceError,
  UnexpectedError,
  UpstreamUnreachableError,
} from '../core/errors.ts';
import { parseJsonOrUndefined } from '../core/json.ts';
import type { WalkPlan } from '../core/walk-plan.ts';
import type { AttemptObserver, UpstreamAnswer } from '../upstream/client.ts';
import { type AttemptOutcome, isThrottled, mayRetry } from '../upstream/retry-policy.ts';
import type { CallMeter } from '../usage/bulk-meter.ts';
import { DEFAULT_PAGE_SIZE, type ListedJob, listResultSchema } from './schemas.ts';

/** A guard against an upstream whose page count never ends. */
export const MAX_WALK_PAGES = 1000;
/**
 * How often one call the gateway throttled is sent again by the walk, after the upstream
 * client's own attempts: the gateway refused it before any endpoint ran, so it is safe to send.
 */
export const MAX_RESENDS = 3;

/** One page of a list or a search, as the walk read it. */
export interface WalkedPage {
  readonly page: number;
  readonly jobs: ListedJob[];
  /** The page count the answer announces (0 when nothing matches). */
  readonly pageCount: number;
  readonly pageSize: number;
}

/**
 * Fetches one page of the list or the search, under the call's context (the walk's, marked for
 * its usage meter), telling `onAttempt` how each attempt ended.
 */
type FetchPage = (
  page: number,
  limit: number,
  onAttempt: AttemptObserver,
  call: CallContext,
) => Promise<UpstreamAnswer>;

/** What a walk reads, and what the container remembers between walks. */
interface PageWalkOptions {
  readonly fetch: FetchPage;
  readonly plan: WalkPlan;
  readonly settings: BulkSettings;
  /** The page size the platform accepted last time, kept per container (and per kind of walk). */
  readonly acceptedSize: { get(): number | undefined; set(size: number): void };
  /** What the walk spends of its caller's usage plans: a unit a page read (none: no plans). */
  readonly meter?: CallMeter;
}

export class PageWalk {
  private readonly limit: AdaptiveLimit;
  private pageSize: number;
  /** The usage plan's refusal that stopped the walk's page reads, if one did. */
  refusal: ServiceError | undefined;

  private readonly options: PageWalkOptions;

  constructor(options: PageWalkOptions) {
    this.options = options;
    this.limit = new AdaptiveLimit(options.settings.pageConcurrency);
    this.pageSize = options.acceptedSize.get() ?? options.settings.pageSize;
  }

  /** Attempts of this walk's page reads that the gateway throttled. */
  get throttles(): number {
    return this.limit.throttles;
  }

  /**
   * The first page read, alone: it gives the page count and settles the page size. A larger
   * page than the default that the platform refuses (400) is asked for again at 20, and the
   * container keeps 20. Throws when the page cannot be read.
   *
   * @param pageFor the page to read at a page size (a walk resuming from an offset)
   */
  async first(pageFor: (pageSize: number) => number = () => 1): Promise<WalkedPage> {
    const size = this.pageSize;
    try {
      return await this.readFirst(pageFor(size), size);
    } catch (error) {
      if (!(error instanceof ServiceError) || error.status !== 400 || size <= DEFAULT_PAGE_SIZE) {
        throw error;
      }
      const page = await this.readFirst(pageFor(DEFAULT_PAGE_SIZE), DEFAULT_PAGE_SIZE);
      this.pageSize = DEFAULT_PAGE_SIZE;
      this.options.acceptedSize.set(DEFAULT_PAGE_SIZE);
      return page;
    }
  }

  /** The first page, sent again (up to MAX_RESENDS) while the gateway throttles it. */
  private async readFirst(page: number, size: number): Promise<WalkedPage> {
    for (let resends = 0; ; resends++) {
      const outcome = await this.attempt(
        (onAttempt, call) => this.readOne(page, size, onAttempt, call),
        true,
      );
      // Refused by the caller's plans before it was sent: nothing was read.
      if ('refused' in outcome) throw outcome.refused;
      if ('value' in outcome) {
        this.options.acceptedSize.set(size);
        return outcome.value;
      }
      const mayStart = () => this.options.plan.mayStart();
      if (!outcome.resend || resends >= MAX_RESENDS || !(await this.limit.paused(mayStart))) {
        throw outcome.error;
      }
    }
  }

  /**
   * Reads these pages several at a time, at the page size the first page settled. Returns the
   * pages read (in page order), the pages not read (time ran out, or the platform failed them
   * for good) and the errors of those that failed.
   */
  async read(pages: readonly number[]): Promise<{
    pages: WalkedPage[];
    unread: number[];
    errors: ServiceError[];
  }> {
    const read: WalkedPage[] = [];
    const failed: number[] = [];
    const errors: ServiceError[] = [];
    const resends = new Map<number, number>();
    this.options.meter?.expect(pages.length);
    const notStarted = await runBounded(
      pages,
      async (page, again) => {
        const outcome = await this.attempt(
          (onAttempt, call) => this.readOne(page, this.pageSize, onAttempt, call),
          true,
        );
        if ('value' in outcome) read.push(outcome.value);
        else if ('refused' in outcome) {
          this.refusal ??= outcome.refused;
          failed.push(page);
        } else if (outcome.resend && (resends.get(page) ?? 0) < MAX_RESENDS) {
          resends.set(page, (resends.get(page) ?? 0) + 1);
          again(page);
        } else {
          failed.push(page);
          errors.push(outcome.error);
        }
      },
      { limit: this.limit, mayStart: () => !this.refusal && this.options.plan.mayStart() },
    );
    read.sort((a, b) => a.page - b.page);
    return { pages: read, unread: [...notStarted, ...failed].sort((a, b) => a - b), errors };
  }

  private attempt<T>(call: BulkCall<T>, idempotent: boolean) {
    return bulkAttempt(this.limit, this.options.plan, call, idempotent, this.options.meter);
  }

  private async readOne(
    page: number,
    size: number,
    onAttempt: AttemptObserver,
    call: CallContext,
  ): Promise<WalkedPage> {
    const result = parseListResult(await this.options.fetch(page, size, onAttempt, call));
    return {
      page,
      jobs: result.resources.record_data,
      pageCount: Number(result.resources.total_page_cnt ?? 0) || 0,
      pageSize: size,
    };
  }
}

/**
 * What one bulk call came to: its value; its error and whether it may be sent again; or the
 * refusal of the caller's usage plans, before anything was sent (the walk stops there).
 */
export type BulkOutcome<T> =
  | { value: T }
  | { error: ServiceError; resend: boolean }
  | { refused: ServiceError };

/** One call of a walk, under its own context (marked when it goes out). */
type BulkCall<T> = (onAttempt: AttemptObserver, call: CallContext) => Promise<T>;

/**
 * One call of a walk, timed for the plan and watched for throttling: a throttle halves the
 * pool and pauses its new starts, a success lets it grow back. With a usage meter, the call
 * first takes its unit of the caller's plans (waiting for the plan's rate as the time allows);
 * a call that never went out gives it back. Never throws: the error comes back with whether the
 * call may be sent again (the gateway throttled it before any endpoint ran, and the retry table
 * allows a resend for this kind of request).
 */
export async function bulkAttempt<T>(
  pool: AdaptiveLimit,
  plan: WalkPlan,
  call: BulkCall<T>,
  idempotent: boolean,
  meter?: CallMeter,
): Promise<BulkOutcome<T>> {
  const refused = await meter?.take((ms) => plan.canWait(ms));
  if (refused) return { refused };
  let last: AttemptOutcome | undefined;
  const onAttempt: AttemptObserver = (outcome, retryAfterMs) => {
    last = outcome;
    if (isThrottled(outcome)) pool.throttled(retryAfterMs);
  };
  let sent = false;
  const context: CallContext = {
    ...plan.call,
    onSend: () => {
      plan.call.onSend?.();
      sent = true;
    },
  };
  try {
    const value = await plan.time(() => call(onAttempt, context));
    pool.succeeded();
    return { value };
  } catch (thrown) {
    // Its unit is not spent: the call never went out, or could not have reached the platform.
    if (!sent || (thrown instanceof UpstreamUnreachableError && !thrown.maybeSent)) {
      meter?.unspent();
    }
    const resend = last !== undefined && isThrottled(last) && mayRetry(last, idempotent);
    return { error: toServiceError(thrown), resend };
  }
}

function parseListResult(response: UpstreamAnswer) {
  const parsed = listResultSchema.safeParse(parseJsonOrUndefined(response.body.toString('utf8')));
  if (!parsed.success) {
    throw new UnexpectedError(new Error('The list or search answer is not a scan job list'));
  }
  return parsed.data;
}

/** Pages from..to (inclusive), at most MAX_WALK_PAGES in all. */
export function pageRange(from: number, to: number): number[] {
  const last = Math.min(to, MAX_WALK_PAGES);
  return Array.from({ length: Math.max(last - from + 1, 0) }, (_, index) => from + index);
}
