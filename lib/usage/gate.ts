/**
 * The usage gate: the container's parts of the usage plans, over one store (setup.ts), which
 * what asks the plans is given. Each way of asking lives in a module of its own, so that a
 * function carries only those it uses:
 *
 *   admission.ts   `admit(gate, request)`: a request of a route that reaches the platform, once
 *                  it is authenticated, authorized and validated (the HTTP stack's admission)
 *   bulk-meter.ts  `new BulkMeter(gate, ...)`: bulk work, one unit for every call it sends
 *   lease.ts       `leasesOf(runtime).acquire(...)`: one long-running request of a caller at a time
 *   report.ts      `usageReport(gate, ...)`: GET /usage
 *   record.ts      `accountRecorder(gate).record(units)`: a request no plan holds (a webhook
 *                  delivery), in the account's usage
 *
 * When the store cannot answer, each container holds every planned subject to its rate, and
 * a caller to its leases, from memory (`gate.outage`, lease.ts), under either policy; a plan's
 * quotas are then admitted uncounted (USAGE_STORE_FAILURE=open, the default) or refused with
 * 503 / `500` (`closed`). Either way a warning and the metric UsageStoreFailures.
 *
 * The container remembers the failure: for OUTAGE_WHILE_MS after it, nothing asks the store
 * (each request is decided from memory at once, where it would wait about two seconds for a
 * table that does not answer). Then one request at a time asks it again, and the first answer
 * ends the outage.
 */
import { describeError, type Logger } from '../core/log.ts';
import { memoryUsageStore, type UsageStore } from './store.ts';
import type { Instant } from './taking.ts';
import { windowsOf } from './windows.ts';

/** The request's metrics recorder, as the inbound side hands it over. */
export interface MetricRecorder {
  count(name: string, dimensions: Readonly<Record<string, string>>, value?: number): void;
}

/** The metrics the usage plans write (namespace PlatformGateway; the recorder adds `Function`). */
export const USAGE_METRICS = {
  /**
   * A request decided without the store (it failed, or is left alone after a failure);
   * dimension Policy (`open`: admitted, `closed`: refused).
   */
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

/** How long, after the store failed, nothing asks it: requests are decided from memory. */
export const OUTAGE_WHILE_MS = 5000;

export interface UsageGateOptions {
  readonly store: UsageStore;
  readonly onStoreFailure: UsageStoreFailurePolicy;
  /** The container's log, for what happens outside a request (a failed give-back). */
  readonly log: Logger;
  readonly now?: () => number;
  /** Where a take starts among a spread subject's shards, 0 to 1 (tests fix it). */
  readonly random?: () => number;
}

export class UsageGate {
  /** The store the gate counts in. */
  readonly store: UsageStore;
  readonly policy: UsageStoreFailurePolicy;
  readonly log: Logger;
  readonly now: () => number;
  readonly random: () => number;
  /**
   * Each planned subject's bucket while the store fails, in this container's memory: an outage
   * never lifts a rate (each container holds every caller to it, and the account).
   */
  readonly outage = memoryUsageStore();
  /** Give-backs no answer waits for (the guard's), and admissions under way, until they end. */
  readonly #pending = new Set<Promise<void>>();
  /** Until when the store is left alone after it failed; 0 while it answers. */
  #outageUntil = 0;
  /** A request is asking the store whether the outage is over. */
  #asking = false;

  constructor(options: UsageGateOptions) {
    this.store = options.store;
    this.policy = options.onStoreFailure;
    this.log = options.log;
    this.now = options.now ?? Date.now;
    this.random = options.random ?? Math.random;
  }

  /** Now, and its windows. */
  instant(): Instant {
    const nowMs = this.now();
    return { nowMs, windows: windowsOf(nowMs) };
  }

  /**
   * Whether to ask the store now: yes while it answers; no for OUTAGE_WHILE_MS after it failed
   * (the request is decided from memory, and counted in the metric); then yes for one request
   * at a time, until one gets an answer.
   */
  asksStore(metrics?: MetricRecorder): boolean {
    if (this.#outageUntil === 0) return true;
    if (this.#asking || this.now() < this.#outageUntil) return this.#decidedAlone(metrics);
    this.#asking = true;
    return true;
  }

  /** A request decided without the store: the metric (its policy decides). */
  #decidedAlone(metrics: MetricRecorder | undefined): false {
    metrics?.count(USAGE_METRICS.storeFailures, { Policy: this.policy });
    return false;
  }

  /** The store answered: the outage, if any, is over. */
  storeAnswered(): void {
    this.#outageUntil = 0;
    this.#asking = false;
  }

  /**
   * Says that the store refused a call because one item was too busy. The store answers, so no
   * outage starts: only this request's part is decided without it. A warning, and the metric.
   */
  itemThrottled(error: unknown, metrics?: MetricRecorder, log?: Logger): void {
    this.storeAnswered();
    this.#decidedAlone(metrics);
    const policy = this.policy;
    (log ?? this.log).warn(`usage item throttled: held from memory, quotas ${policy}`, {
      ...describeError(error),
      policy,
    });
  }

  /**
   * Says that the store failed, and leaves it alone for OUTAGE_WHILE_MS: a warning, and the
   * metric.
   */
  storeFailed(error: unknown, metrics?: MetricRecorder, log?: Logger): void {
    this.#outageUntil = this.now() + OUTAGE_WHILE_MS;
    this.#asking = false;
    this.#decidedAlone(metrics);
    const policy = this.policy;
    (log ?? this.log).warn(`usage store failed: rates held from memory, quotas ${policy}`, {
      ...describeError(error),
      policy,
    });
  }

  /**
   * Keeps a give-back (or an admission, which may end in one) until it ends, so that `settled`
   * can wait for it; returns it.
   */
  keep(work: Promise<void>): Promise<void> {
    this.#pending.add(work);
    void work.finally(() => this.#pending.delete(work));
    return work;
  }

  /** Resolves once every give-back and admission started so far has ended (tests, benchmarks). */
  async settled(): Promise<void> {
    while (this.#pending.size > 0) await Promise.all([...this.#pending]);
  }
}
