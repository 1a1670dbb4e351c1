/**
 * cancel-reserved: searches every page, then cancels every job whose status is `Reservation`,
 * several at a time, within the invocation's time. It never hides a side effect: the answer
 * names every job cancelled, every job that could not be, and every reserved job found but not
 * attempted when the time ran out (`remaining`); a second call with the same criteria finds only
 * what is still reserved, so it goes on where the first stopped.
 *
 * Guarded, since one call may cancel every reserved job: `dryRun` answers what it would cancel
 * and sends no cancel; `expectAtMost` refuses (409/`100`, nothing sent) when the search finds
 * more reserved jobs than the caller expects. Both are decided once every page has been read.
 */
import { AdaptiveLimit, runBounded } from '../core/bounded-pool.ts';
import type { CallContext } from '../core/call-context.ts';
import type { BulkSettings } from '../core/config.ts';
import { type ServiceError, TooManyMatchesError } from '../core/errors.ts';
import { WalkPlan } from '../core/walk-plan.ts';
import type { AttemptObserver, UpstreamAnswer } from '../upstream/client.ts';
import type { CallMeter } from '../usage/bulk-meter.ts';
import { type CancelReservedBody, isJobId, type SearchBody } from './schemas.ts';
import {
  bulkAttempt,
  MAX_RESENDS,
  MAX_WALK_PAGES,
  PageWalk,
  pageRange,
  type WalkedPage,
} from './walk.ts';

const RESERVED_STATUS = 'Reservation';
/**
 * Kept back from the invocation to answer: the answer's JSON (10,000 ids are about 100 KB), its
 * log line, a late timer on a busy event loop. The whole-invocation guard answers 100 ms before
 * the timeout; the walk stops well before it.
 */
const CANCEL_RESERVED_RESERVE_MS = 1000;

interface CancelFailure {
  readonly instanceNo: string;
  readonly error: {
    readonly errorCode: string;
    readonly message: string;
    readonly details?: string;
  };
}

/** The contract's answer of POST /jobs/cancel-reserved. */
export interface CancelReservedResult {
  readonly cancelled: string[];
  readonly failed: CancelFailure[];
  /** Reserved jobs found but not attempted: the time left could not cover them. */
  readonly remaining: string[];
  /** Every page was read and every reserved job found was attempted. */
  readonly complete: boolean;
}

/** The answer of a dry run: what a call with the same criteria would do, with nothing sent. */
interface CancelReservedDryRun {
  readonly dryRun: true;
  /** The reserved jobs found, which a call would cancel. */
  readonly reserved: string[];
  /** Reserved jobs a call would report as failed without sending anything (ids it may not send). */
  readonly failed: CancelFailure[];
  /** Every page was read. */
  readonly complete: boolean;
}

/** What POST /jobs/cancel-reserved answers (200). */
export type CancelReservedAnswer = CancelReservedResult | CancelReservedDryRun;

/**
 * The jobs a call touched, for its request log line: every job cancelled and every job that
 * failed (a cancel that timed out may still have happened). A dry run touched none.
 */
export function jobIdsOf(answer: CancelReservedAnswer): string[] {
  if ('dryRun' in answer) return [];
  return [...answer.cancelled, ...answer.failed.map((failure) => failure.instanceNo)];
}

/** The scan job calls the workflow makes (the client's, with an attempt observer). */
export interface CancelReservedCalls {
  search(body: SearchBody, call: CallContext, onAttempt: AttemptObserver): Promise<UpstreamAnswer>;
  cancel(
    instanceNo: string,
    call: CallContext,
    onAttempt: AttemptObserver,
  ): Promise<UpstreamAnswer>;
  /** The search page size the platform accepted last time in this container. */
  readonly searchPageSize: { get(): number | undefined; set(size: number): void };
}

export async function cancelReserved(
  calls: CancelReservedCalls,
  criteria: CancelReservedBody,
  call: CallContext,
  settings: BulkSettings,
  meter?: CallMeter,
): Promise<CancelReservedAnswer> {
  const log = call.log;
  const plan = new WalkPlan(call, { reserveMs: CANCEL_RESERVED_RESERVE_MS });
  const walk = new PageWalk({
    // Every status, not the reserved ones only: a page then keeps its jobs while they are
    // cancelled, so the pages read cannot shift under the walk. Only the search's own fields
    // go: dryRun and expectAtMost are this service's, not the platform's.
    fetch: (page, limit, onAttempt, pageCall) =>
      calls.search(
        {
          searchType: criteria.searchType,
          searchKeyword: criteria.searchKeyword,
          statusCode: null,
          limit,
          page,
        },
        pageCall,
        onAttempt,
      ),
    plan,
    settings,
    acceptedSize: calls.searchPageSize,
    meter,
  });

  // Nothing is sent before every page is read: a failed first page is the caller's error.
  const first = await walk.first();
  const others = await walk.read(pageRange(2, first.pageCount));
  const pagesComplete = others.unread.length === 0 && first.pageCount <= MAX_WALK_PAGES;
  const { reserved, invalid } = reservedJobs([first, ...others.pages]);
  const found = reserved.length + invalid.length;
  const seen = {
    pages: first.pageCount,
    pagesUnread: others.unread.length,
    pageSize: first.pageSize,
    found,
  };
  if (criteria.expectAtMost !== undefined && found > criteria.expectAtMost) {
    log.warn('cancel-reserved refused: more reserved jobs than expected', {
      ...seen,
      expectAtMost: criteria.expectAtMost,
    });
    throw new TooManyMatchesError(found, criteria.expectAtMost);
  }
  const unsendable = invalid.map(unsendableFailure);
  if (criteria.dryRun) {
    log.info('cancel-reserved dry run', { ...seen, complete: pagesComplete });
    return { dryRun: true, reserved, failed: unsendable, complete: pagesComplete };
  }

  const cancels = await cancelEach(calls, reserved, { plan, settings, meter });
  const failed = [...unsendable, ...cancels.failed];
  const { cancelled, remaining } = cancels;
  const result: CancelReservedResult = {
    cancelled,
    failed,
    remaining,
    complete: pagesComplete && remaining.length === 0,
  };
  const counts = {
    ...seen,
    cancelled: cancelled.length,
    failed: failed.length,
    remaining: remaining.length,
    complete: result.complete,
    // How the pools met the platform's throttle: attempts throttled, and the lowest limit.
    throttles: walk.throttles + cancels.throttles,
    lowestCancelConcurrency: cancels.lowest,
    // A usage plan that stopped the walk (its code: 400 a quota, 420 a rate).
    stoppedByPlan: (walk.refusal ?? cancels.refusal)?.code,
  };
  if (!result.complete) {
    call.log.warn('cancel-reserved stopped short; a second call goes on', {
      ...counts,
      pageErrors: [...new Set(others.errors.map((error) => error.code))].join(','),
    });
  } else call.log.info('cancel-reserved done', counts);
  return result;
}

/** A reserved job listed with an id that may not go into a path: failed, nothing sent. */
function unsendableFailure(instanceNo: string): CancelFailure {
  return {
    instanceNo,
    error: {
      errorCode: '900',
      message: 'Unexpected Error',
      details:
        'The platform listed this job with an instanceNo outside the job id pattern; no cancel was sent.',
    },
  };
}

/**
 * Cancels each reserved job, several at a time, while the time allows and the caller's plans
 * admit a call: what neither covered comes back in `remaining`, in the order found.
 */
async function cancelEach(
  calls: CancelReservedCalls,
  reserved: readonly string[],
  walk: { plan: WalkPlan; settings: BulkSettings; meter: CallMeter | undefined },
) {
  const { plan, meter } = walk;
  const cancelled: string[] = [];
  const failed: CancelFailure[] = [];
  const pool = new AdaptiveLimit(walk.settings.cancelConcurrency);
  const resends = new Map<string, number>();
  const refused = new Set<string>();
  let refusal: ServiceError | undefined;
  meter?.expect(reserved.length);
  const notStarted = await runBounded(
    reserved,
    async (instanceNo, again) => {
      const cancel: Parameters<typeof bulkAttempt>[2] = (onAttempt, call) =>
        calls.cancel(instanceNo, call, onAttempt);
      const outcome = await bulkAttempt(pool, plan, cancel, false, meter);
      if ('value' in outcome) cancelled.push(instanceNo);
      else if ('refused' in outcome) {
        refusal ??= outcome.refused;
        refused.add(instanceNo);
      } else if (outcome.resend && (resends.get(instanceNo) ?? 0) < MAX_RESENDS) {
        resends.set(instanceNo, (resends.get(instanceNo) ?? 0) + 1);
        again(instanceNo);
      } else {
        const { code, message } = outcome.error;
        failed.push({ instanceNo, error: { errorCode: code, message } });
      }
    },
    { limit: pool, mayStart: () => !refusal && plan.mayStart() },
  );
  const left = new Set([...notStarted, ...refused]);
  const remaining = reserved.filter((instanceNo) => left.has(instanceNo));
  return { cancelled, failed, remaining, refusal, throttles: pool.throttles, lowest: pool.lowest };
}

/** The reserved jobs of the pages, in the order found, without repeats; ids that may not be sent apart. */
function reservedJobs(pages: readonly WalkedPage[]): { reserved: string[]; invalid: string[] } {
  const reserved = new Set<string>();
  const invalid = new Set<string>();
  for (const page of pages) {
    for (const record of page.jobs) {
      if (record.status !== RESERVED_STATUS) continue;
      const instanceNo = String(record.instanceNo);
      (isJobId(instanceNo) ? reserved : invalid).add(instanceNo);
    }
  }
  return { reserved: [...reserved], invalid: [...invalid] };
}
