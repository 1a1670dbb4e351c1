/**
 * The usage gate: what the inbound side asks, once a request is authenticated, authorized and
 * validated and before anything goes upstream, whether the caller's plan and the account's
 * admit it. One gate per container (setup.ts), over one store.
 *
 *   const admission = await usageGateOf(runtime).admit({ callerId, plans, units, metrics, log });
 *   if (!admission.admitted) throw admission.error;           // 429 / 420 or 400; 503 / 500
 *   ...the upstream call; on an error that could not have reached the platform
 *      (UpstreamUnreachableError with maybeSent false): await admission.giveBack();
 *   ...every answer, success or error, carries admission.headers.
 *
 * - A caller without a plan, while the secret has no accountPlan, costs nothing: no store call,
 *   no header.
 * - The caller's plan is judged first, then the account's: a caller over its own plan never
 *   writes the account's record, which every caller shares. When the account refuses a request
 *   the caller's plan took, the caller's units are given back.
 * - Refused requests count nothing.
 * - When the store cannot answer: USAGE_STORE_FAILURE=open (the default) admits the request and
 *   counts it nowhere, with a warning and the metric UsageStoreFailures; `closed` refuses it
 *   with 503 / `500`.
 */
import { randomUUID } from 'node:crypto';
import {
  type PlanHolder,
  QuotaExceededError,
  RateLimitedError,
  type ServiceError,
  ThrottleLimitedError,
  UsageStoreUnavailableError,
} from '../core/errors.js';
import { describeError, type Logger } from '../core/log.js';
import type { PlanEntry } from '../secrets/schema.js';
import type { Demand, Refusal, UsageState } from './limits.js';
import { type Counts, type Plans, type Rules, rulesOf } from './plan.js';
import { type PlanView, rateLimitFields } from './rate-limit-headers.js';
import { ACCOUNT_KEY, callerKey, leaseKey, type UsageStore } from './store.js';
import { countsOf, type Units } from './units.js';
import { type Windows, windowsOf } from './windows.js';

/** The request's metrics recorder, as the inbound side hands it over. */
export interface MetricRecorder {
  count(name: string, dimensions: Readonly<Record<string, string>>, value?: number): void;
}

/** The metrics the gate writes (namespace PlatformGateway; the recorder adds `Function`). */
const USAGE_METRICS = {
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

export type UsageStoreFailurePolicy = 'open' | 'closed';

export interface UsageGateOptions {
  readonly store: UsageStore;
  readonly onStoreFailure: UsageStoreFailurePolicy;
  /** The container's log, for what happens outside a request (a failed give-back). */
  readonly log: Logger;
  readonly now?: () => number;
}

export interface AdmitRequest {
  /** The caller's id (its record's key; never shown to another caller). */
  readonly callerId: string;
  /** The caller's plan and the account's (plan.ts: `plansOf(secret, callerId)`). */
  readonly plans: Plans;
  /** What the request spends (units.ts: ONE_REQUEST, `catalogueUnits(api, body)`). */
  readonly units: Units;
  readonly metrics?: MetricRecorder;
  readonly log?: Logger;
}

export interface Admitted {
  readonly admitted: true;
  /** `RateLimit-Policy` and `RateLimit`, for every answer to this request; none without a plan. */
  readonly headers: Readonly<Record<string, string>>;
  /**
   * Takes the request's units back: to call when its upstream call could not have reached the
   * platform (connection refused, DNS), never after any answer of the platform. Once.
   */
  giveBack(): Promise<void>;
}

interface Refused {
  readonly admitted: false;
  /** The error to answer with: 429 / `420` or `400` with Retry-After, or 503 / `500`. */
  readonly error: ServiceError;
}

export type Admission = Admitted | Refused;

const NOTHING_HELD: Admitted = {
  admitted: true,
  headers: {},
  giveBack: async () => {},
};

/** One subject's part of an admission: its record's key, its plan's rules, its usage. */
interface Taken {
  readonly holder: PlanHolder;
  readonly key: string;
  readonly rules: Rules;
  readonly state: UsageState | undefined;
}

export class UsageGate {
  /** The store the gate counts in; reports read it (report.ts). */
  readonly store: UsageStore;
  private readonly onStoreFailure: UsageStoreFailurePolicy;
  private readonly log: Logger;
  readonly now: () => number;

  constructor(options: UsageGateOptions) {
    this.store = options.store;
    this.onStoreFailure = options.onStoreFailure;
    this.log = options.log;
    this.now = options.now ?? (() => Date.now());
  }

  /** Whether the plans admit the request (module comment). */
  async admit(request: AdmitRequest): Promise<Admission> {
    const { callerId, plans, units, metrics } = request;
    const counts = countsOf(units);
    if (units.characters && units.characters.count > 0) {
      metrics?.count(
        USAGE_METRICS.callerCharacters,
        { Caller: callerId, Api: units.characters.api },
        units.characters.count,
      );
    }
    if (!plans.plan && !plans.accountPlan) return NOTHING_HELD;
    const nowMs = this.now();
    const windows = windowsOf(nowMs);
    const subjects: { holder: PlanHolder; key: string; plan: PlanEntry }[] = [];
    if (plans.plan) subjects.push({ holder: 'caller', key: callerKey(callerId), plan: plans.plan });
    if (plans.accountPlan) {
      subjects.push({ holder: 'account', key: ACCOUNT_KEY, plan: plans.accountPlan });
    }
    const taken: Taken[] = [];
    for (const { holder, key, plan } of subjects) {
      const rules = rulesOf(plan);
      const demand: Demand = { nowMs, windows, counts, rules };
      let result: Awaited<ReturnType<UsageStore['take']>>;
      try {
        result = await this.store.take(key, demand);
      } catch (error) {
        return this.storeFailed(error, request, subjects, taken, counts, windows, nowMs);
      }
      if (!result.taken) {
        await this.giveBackAll(taken, counts, windows, request.log);
        metrics?.count(USAGE_METRICS.refusals, { Plan: holder, Limit: result.refusal.limit });
        const views = [
          ...taken.map((part) => viewOf(part, counts, nowMs, windows)),
          viewOf({ holder, key, rules, state: result.state }, counts, nowMs, windows),
        ];
        return { admitted: false, error: refusalError(holder, result.refusal, views) };
      }
      taken.push({ holder, key, rules, state: result.state });
    }
    const account = taken.find((part) => part.holder === 'account');
    if (account?.state) {
      const used = monthShareUsed(account.rules, account.state, windows);
      if (used !== undefined) metrics?.count(USAGE_METRICS.accountMonthUsed, {}, used);
    }
    let given = false;
    return {
      admitted: true,
      headers: rateLimitFields(taken.map((part) => viewOf(part, counts, nowMs, windows))),
      giveBack: async () => {
        if (given) return;
        given = true;
        await this.giveBackAll(taken, counts, windows, request.log);
      },
    };
  }

  /**
   * Counts a request no plan holds in the account's usage (a webhook delivery that reached its
   * action: its sender is not a caller): never refused, whether or not the secret has an account
   * plan (the consumer may not read the callers' secret, where it is kept), so that GET /usage
   * shows it whenever the account's plan is read.
   */
  async record(units: Units, log?: Logger): Promise<void> {
    const nowMs = this.now();
    const rules: Rules = { rate: undefined, day: {}, month: {} };
    try {
      await this.store.take(ACCOUNT_KEY, {
        nowMs,
        windows: windowsOf(nowMs),
        counts: countsOf(units),
        rules,
      });
    } catch (error) {
      (log ?? this.log).warn('usage not recorded: the usage store did not answer', {
        ...describeError(error),
      });
    }
  }

  /**
   * Holds a caller to one long-running request at a time (`cancel-reserved`): a lease in the
   * store until `ttlMs` from now, or until the returned release is called. A second request
   * while the lease runs gets ThrottleLimitedError (429 / `410`). Throws the error to answer
   * with; the store's failure follows USAGE_STORE_FAILURE as admissions do.
   */
  async acquire(
    callerId: string,
    ttlMs: number,
    options: {
      readonly what?: string;
      readonly metrics?: MetricRecorder;
      readonly log?: Logger;
    } = {},
  ): Promise<() => Promise<void>> {
    const what = options.what ?? 'cancel-reserved';
    const key = leaseKey(what, callerId);
    const token = randomUUID();
    const nowMs = this.now();
    let result: Awaited<ReturnType<UsageStore['acquireLease']>>;
    try {
      result = await this.store.acquireLease(key, token, nowMs + ttlMs, nowMs);
    } catch (error) {
      options.metrics?.count(USAGE_METRICS.storeFailures, { Policy: this.onStoreFailure });
      (options.log ?? this.log).warn('lease not taken: the usage store did not answer', {
        ...describeError(error),
        policy: this.onStoreFailure,
      });
      if (this.onStoreFailure === 'closed') throw new UsageStoreUnavailableError(error);
      return async () => {};
    }
    if (!result.acquired) throw new ThrottleLimitedError(what, (result.untilMs - nowMs) / 1000);
    return async () => {
      try {
        await this.store.releaseLease(key, token);
      } catch (error) {
        // The lease lapses at its end anyway.
        (options.log ?? this.log).warn('lease not released: the usage store did not answer', {
          ...describeError(error),
        });
      }
    };
  }

  private async storeFailed(
    error: unknown,
    request: AdmitRequest,
    subjects: readonly { holder: PlanHolder; plan: PlanEntry }[],
    taken: readonly Taken[],
    counts: Counts,
    windows: Windows,
    nowMs: number,
  ): Promise<Admission> {
    const policy = this.onStoreFailure;
    request.metrics?.count(USAGE_METRICS.storeFailures, { Policy: policy });
    (request.log ?? this.log).warn(
      policy === 'open'
        ? 'usage store failed: admitted without counting (USAGE_STORE_FAILURE=open)'
        : 'usage store failed: refused (USAGE_STORE_FAILURE=closed)',
      { ...describeError(error), policy },
    );
    if (policy === 'closed') {
      await this.giveBackAll(taken, counts, windows, request.log);
      return { admitted: false, error: new UsageStoreUnavailableError(error) };
    }
    // What was taken stays taken (that part of the request is counted); the policies are
    // stated, their state is not known.
    const views = subjects.map(({ holder, plan }) => ({
      holder,
      rules: rulesOf(plan),
      state: taken.find((part) => part.holder === holder)?.state,
      counts,
      nowMs,
      windows,
    }));
    const fields = rateLimitFields(views);
    const policyOnly: Record<string, string> = {};
    if (fields['RateLimit-Policy']) policyOnly['RateLimit-Policy'] = fields['RateLimit-Policy'];
    return { admitted: true, headers: policyOnly, giveBack: async () => {} };
  }

  private async giveBackAll(
    taken: readonly Taken[],
    counts: Counts,
    windows: Windows,
    log: Logger | undefined,
  ): Promise<void> {
    await Promise.all(
      taken.map(async ({ key, rules }) => {
        try {
          await this.store.giveBack(key, {
            counts,
            day: windows.day,
            month: windows.month,
            intervalUs: rules.rate?.intervalUs ?? 0,
          });
        } catch (error) {
          // The units stay counted: a plan overcounts, never overspends.
          (log ?? this.log).warn('usage not given back: the usage store did not answer', {
            ...describeError(error),
          });
        }
      }),
    );
  }
}

function viewOf(part: Taken, counts: Counts, nowMs: number, windows: Windows): PlanView {
  return { holder: part.holder, rules: part.rules, state: part.state, counts, nowMs, windows };
}

function refusalError(holder: PlanHolder, refusal: Refusal, views: readonly PlanView[]) {
  const headers = rateLimitFields(views);
  return refusal.kind === 'rate'
    ? new RateLimitedError(holder, refusal.retryAfterMs / 1000, headers)
    : new QuotaExceededError(holder, refusal.limit, refusal.retryAfterMs / 1000, headers);
}

/** The largest share of the account's monthly quotas used, in percent; none without any. */
function monthShareUsed(rules: Rules, state: UsageState, windows: Windows): number | undefined {
  let largest: number | undefined;
  const used = state.month === windows.month ? state.monthCounts : undefined;
  for (const counter of ['requests', 'translate', 'tts'] as const) {
    const quota = rules.month[counter];
    if (quota === undefined) continue;
    const share = Math.round((100 * (used?.[counter] ?? 0)) / quota);
    largest = Math.max(largest ?? 0, share);
  }
  return largest;
}
