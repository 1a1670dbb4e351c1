/**
 * One request's admission as the gate (gate.ts) builds it from its subjects' parts: the error
 * a refused part answers with, or the admitted request's RateLimit fields and its give-back.
 */
import {
  QuotaExceededError,
  RateLimitedError,
  type ServiceError,
  UsageStoreUnavailableError,
} from '../core/errors.js';
import type { Logger } from '../core/log.js';
import type { Refusal } from './limits.js';
import type { Counts } from './plan.js';
import { type PlanView, rateLimitFields } from './rate-limit-headers.js';
import type { UsageStore } from './store.js';
import type { Instant, Seen, Subject, SubjectTake } from './taking.js';
import { monthShareUsed, planView, subjectState } from './views.js';

/** The request's metrics recorder, as the inbound side hands it over. */
export interface MetricRecorder {
  count(name: string, dimensions: Readonly<Record<string, string>>, value?: number): void;
}

/** The metrics the usage gate writes (namespace PlatformGateway; the recorder adds `Function`). */
export const USAGE_METRICS = {
  /** The store could not answer; dimension Policy (`open`: admitted, `closed`: refused). */
  storeFailures: 'UsageStoreFailures',
  /** A request refused by a plan; dimensions Plan (`caller`, `account`) and Limit. */
  refusals: 'UsageRefusals',
  /** Characters of text an admitted request sends; dimensions Caller and Api. */
  callerCharacters: 'CallerCharacters',
  /**
   * After each admission under an account plan with monthly quotas: the largest share of them
   * used, in percent (the 80 % alarm reads its Maximum).
   */
  accountMonthUsed: 'AccountMonthQuotaUsedPercent',
} as const;

/** One subject's part of an admission. */
export type Part =
  | { readonly kind: 'taken'; readonly subject: Subject; readonly take: SubjectTake & { ok: true } }
  | {
      readonly kind: 'refused';
      readonly subject: Subject;
      readonly refusal: Refusal;
      /** The records that refused it (undefined: judged from memory). */
      readonly seen: Seen | undefined;
    }
  /** The store failed; closed, a plan with quotas is refused. */
  | { readonly kind: 'unavailable'; readonly subject: Subject }
  /** The store failed; the rate from memory admits it, its quotas are not counted. */
  | { readonly kind: 'uncounted'; readonly subject: Subject };

export interface Admitted {
  readonly admitted: true;
  /** `RateLimit-Policy` and `RateLimit`, for every answer to this request; none without a plan. */
  readonly headers: Readonly<Record<string, string>>;
  /**
   * Takes the request's units back: when nothing of it reached the platform (refused or
   * abandoned before its call went out, or a call that could not connect). Once.
   */
  giveBack(): Promise<void>;
}

interface Refused {
  readonly admitted: false;
  /** The error to answer with: 429 / `420` or `400` with Retry-After, or 503 / `500`. */
  readonly error: ServiceError;
}

export type Admission = Admitted | Refused;

/** What the gate lends its admissions. */
interface GateParts {
  readonly store: UsageStore;
  giveBackParts(parts: readonly Part[], log: Logger | undefined): Promise<void>;
}

interface RequestParts {
  readonly metrics?: MetricRecorder;
  readonly log?: Logger;
}

/** A part's view in the RateLimit fields: its state when its records were read. */
function viewOf(store: UsageStore, part: Part, counts: Counts, at: Instant): PlanView {
  const seen = part.kind === 'taken' ? part.take.seen : part.kind === 'refused' ? part.seen : null;
  const state = seen === null ? undefined : subjectState(part.subject, seen, store, at);
  return planView(part.subject.holder, part.subject.rules, state, counts, at);
}

/** The fields of the parts: whole, or the policies only when a part's state is not known. */
function fieldsOf(store: UsageStore, parts: readonly Part[], counts: Counts, at: Instant) {
  const fields = rateLimitFields(parts.map((part) => viewOf(store, part, counts, at)));
  const known = parts.every((part) => part.kind === 'taken' || part.kind === 'refused');
  if (known || !fields['RateLimit-Policy']) return fields;
  return { 'RateLimit-Policy': fields['RateLimit-Policy'] };
}

/** The error a part refuses its request with, or undefined when it admits it. */
export function refusalOf(
  gate: GateParts,
  part: Part,
  before: readonly Part[],
  counts: Counts,
  at: Instant,
): ServiceError | undefined {
  if (part.kind === 'unavailable') {
    return new UsageStoreUnavailableError(new Error('the usage store did not answer'));
  }
  if (part.kind !== 'refused') return undefined;
  const headers = fieldsOf(gate.store, [...before, part], counts, at);
  const { refusal, subject } = part;
  return refusal.kind === 'rate'
    ? new RateLimitedError(subject.holder, refusal.retryAfterMs / 1000, headers)
    : new QuotaExceededError(subject.holder, refusal.limit, refusal.retryAfterMs / 1000, headers);
}

const NOTHING_HELD: Admitted = { admitted: true, headers: {}, giveBack: async () => {} };

/** An admitted request: its fields, the account's month share metric, its give-back. */
export function partsAdmission(
  gate: GateParts,
  parts: readonly Part[],
  counts: Counts,
  at: Instant,
  request: RequestParts = {},
): Admitted {
  if (parts.length === 0) return NOTHING_HELD;
  const account = parts.find((part) => part.subject.holder === 'account');
  if (account?.kind === 'taken') {
    const state = subjectState(account.subject, account.take.seen, gate.store, at);
    const used = monthShareUsed(account.subject.rules, state, at);
    if (used !== undefined) request.metrics?.count(USAGE_METRICS.accountMonthUsed, {}, used);
  }
  let given = false;
  return {
    admitted: true,
    headers: fieldsOf(gate.store, parts, counts, at),
    giveBack: async () => {
      if (given) return;
      given = true;
      await gate.giveBackParts(parts, request.log);
    },
  };
}
