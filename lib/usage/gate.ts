/**
 * The usage gate: what the inbound side asks, once a request is authenticated, authorized and
 * validated and before anything goes upstream, whether the caller's plan and the account's
 * admit it. One gate per container (setup.ts), over one store.
 *
 *   const admission = await usageGateOf(runtime).admit({ callerId, plans, units, metrics, log });
 *   if (!admission.admitted) throw admission.error;           // 429 / 420 or 400; 503 / 500
 *   ...the upstream call; when nothing of the request reached the platform (it was refused or
 *      abandoned before its call went out, or the call could not connect):
 *      await admission.giveBack();
 *   ...every answer, success or error, carries admission.headers.
 *
 * - A caller without a plan, while the secret has no accountPlan, costs nothing: no store call,
 *   no header.
 * - The caller's plan is judged first, then the account's: a caller over its own plan never
 *   writes the account's records, which every caller shares. When the account refuses a request
 *   the caller's plan took, the caller's units are given back.
 * - Refused requests count nothing.
 * - When the store cannot answer, each container holds every planned subject to its rate from
 *   memory (outage.ts), under either policy; a plan's quotas are then admitted uncounted
 *   (USAGE_STORE_FAILURE=open, the default) or refused with 503 / `500` (`closed`). Either way
 *   a warning and the metric UsageStoreFailures.
 * - Bulk work takes a unit for every call it sends, in blocks (bulk-meter.ts: `gate.meter`).
 */
import { randomUUID } from 'node:crypto';
import {
  type ServiceError,
  ThrottleLimitedError,
  UsageStoreUnavailableError,
} from '../core/errors.js';
import { describeError, type Logger } from '../core/log.js';
import {
  type Admission,
  type MetricRecorder,
  type Part,
  partsAdmission,
  refusalOf,
  USAGE_METRICS,
} from './admission.js';
import { BulkMeter } from './bulk-meter.js';
import { OutageMemory } from './outage.js';
import type { Counts, Plans } from './plan.js';
import { SHARDS, shardKey } from './shards.js';
import type { UsageStore } from './store.js';
import {
  ACCOUNT_KEY,
  giveBackAll,
  type Instant,
  type Subject,
  subjectsOf,
  takeFromSubject,
} from './taking.js';
import { countsOf, type Units } from './units.js';
import { windowsOf } from './windows.js';

export type { Admission, Admitted, MetricRecorder } from './admission.js';

export type UsageStoreFailurePolicy = 'open' | 'closed';

export interface UsageGateOptions {
  readonly store: UsageStore;
  readonly onStoreFailure: UsageStoreFailurePolicy;
  /** The container's log, for what happens outside a request (a failed give-back). */
  readonly log: Logger;
  readonly now?: () => number;
  /** Where a take starts among a spread subject's shards (tests fix it). */
  readonly random?: () => number;
}

export interface AdmitRequest {
  /** The caller's id (its records' key; never shown to another caller). */
  readonly callerId: string;
  /** The caller's plan and the account's (plan.ts: `plansOf(secret, callerId)`). */
  readonly plans: Plans;
  /** What the request spends (units.ts: ONE_REQUEST, `catalogueUnits(api, body)`). */
  readonly units: Units;
  readonly metrics?: MetricRecorder;
  readonly log?: Logger;
}

/** The lease of a caller's long-running route (`cancel-reserved`). */
export const leaseKey = (what: string, callerId: string) => `lease#${what}#${callerId}`;

const hasQuota = (subject: Subject) =>
  Object.keys(subject.rules.day).length + Object.keys(subject.rules.month).length > 0;

export class UsageGate {
  /** The store the gate counts in; reports read it (report.ts). */
  readonly store: UsageStore;
  readonly now: () => number;
  readonly policy: UsageStoreFailurePolicy;
  readonly log: Logger;
  readonly random: () => number;
  /** Each planned subject's bucket and the leases, while the store fails (outage.ts). */
  readonly outage = new OutageMemory();
  /** Give-backs started without being awaited (the answer could not wait for them). */
  private readonly pending = new Set<Promise<void>>();

  constructor(options: UsageGateOptions) {
    this.store = options.store;
    this.policy = options.onStoreFailure;
    this.log = options.log;
    this.now = options.now ?? (() => Date.now());
    this.random = options.random ?? Math.random;
  }

  /** The instant of a take: now, and its windows. */
  instant(): Instant {
    const nowMs = this.now();
    return { nowMs, windows: windowsOf(nowMs) };
  }

  /** Whether the plans admit the request (module comment). */
  async admit(request: AdmitRequest): Promise<Admission> {
    const { callerId, plans, units, metrics } = request;
    const counts = countsOf(units);
    if (units.characters && units.characters.count > 0) {
      const dimensions = { Caller: callerId, Api: units.characters.api };
      metrics?.count(USAGE_METRICS.callerCharacters, dimensions, units.characters.count);
    }
    const subjects = subjectsOf(callerId, plans);
    if (subjects.length === 0) return partsAdmission(this, [], counts, this.instant());
    const at = this.instant();
    const parts: Part[] = [];
    let down = false;
    for (const subject of subjects) {
      const part = await this.takePart(subject, counts, at, request, down);
      down ||= part.kind !== 'taken';
      const refused = refusalOf(this, part, parts, counts, at);
      if (refused) {
        await this.giveBackParts(parts, request.log);
        if (part.kind === 'refused') {
          const dimensions = { Plan: subject.holder, Limit: part.refusal.limit };
          metrics?.count(USAGE_METRICS.refusals, dimensions);
        }
        return { admitted: false, error: refused };
      }
      parts.push(part);
    }
    return partsAdmission(this, parts, counts, at, request);
  }

  /** One subject's part of an admission: from the store, or from memory while it fails. */
  private async takePart(
    subject: Subject,
    counts: Counts,
    at: Instant,
    request: AdmitRequest,
    down: boolean,
  ): Promise<Part> {
    if (!down) {
      try {
        const take = await takeFromSubject({
          store: this.store,
          subject,
          perUnit: counts,
          most: 1,
          exact: true,
          at,
          random: this.random,
          log: request.log ?? this.log,
        });
        return take.ok ? { kind: 'taken', subject, take } : { kind: 'refused', subject, ...take };
      } catch (error) {
        this.storeFailed(error, request.metrics, request.log);
      }
    }
    return this.fromMemory(subject, counts.requests, at);
  }

  /** A subject judged while the store fails: its rate from memory, its quotas by the policy. */
  fromMemory(subject: Subject, units: number, at: Instant): Part {
    const refusal = this.outage.takeRate(subject.layout.key, subject.rules.rate, units, at);
    if (refusal) return { kind: 'refused', subject, refusal, seen: undefined };
    if (this.policy === 'closed' && hasQuota(subject)) return { kind: 'unavailable', subject };
    return { kind: 'uncounted', subject };
  }

  /** Says that the store failed: a warning, and the metric. */
  storeFailed(error: unknown, metrics: MetricRecorder | undefined, log: Logger | undefined): void {
    const policy = this.policy;
    metrics?.count(USAGE_METRICS.storeFailures, { Policy: policy });
    (log ?? this.log).warn(
      policy === 'open'
        ? 'usage store failed: rates held from memory, quotas not counted (USAGE_STORE_FAILURE=open)'
        : 'usage store failed: rates held from memory, quotas refused (USAGE_STORE_FAILURE=closed)',
      { ...describeError(error), policy },
    );
  }

  /** Gives back what the parts took. */
  async giveBackParts(parts: readonly Part[], log: Logger | undefined): Promise<void> {
    const held = parts.flatMap((part) => (part.kind === 'taken' ? part.take.held : []));
    if (held.length > 0) await giveBackAll(this.store, held, log ?? this.log);
  }

  /** Keeps a give-back until it ends, so that `settled` can wait for it; returns it. */
  keep(work: Promise<void>): Promise<void> {
    this.pending.add(work);
    void work.finally(() => this.pending.delete(work));
    return work;
  }

  /** Resolves once every give-back started so far has ended (tests, benchmarks). */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  /**
   * Counts a request no plan holds in the account's usage (a webhook delivery that reached its
   * action: its sender is not a caller): never refused, whether or not the secret has an account
   * plan (the consumer may not read the callers' secret, where it is kept), so that GET /usage
   * shows it whenever the account's plan is read.
   */
  async record(units: Units, log?: Logger): Promise<void> {
    const at = this.instant();
    // On one of the account's shards, as its requests are (shards.ts).
    const key = shardKey(ACCOUNT_KEY, Math.floor(this.random() * SHARDS));
    const rules = { rate: undefined, day: {}, month: {} };
    try {
      await this.store.take(key, { ...at, counts: countsOf(units), rules });
    } catch (error) {
      (log ?? this.log).warn('usage not recorded: the usage store did not answer', {
        ...describeError(error),
      });
    }
  }

  /** The meter of a bulk walk: a unit for every call it sends (bulk-meter.ts). */
  meter(callerId: string, plans: Plans, options: { metrics?: MetricRecorder; log: Logger }) {
    return new BulkMeter(this, subjectsOf(callerId, plans), options);
  }

  /**
   * Holds a caller to one long-running request at a time (`cancel-reserved`): a lease in the
   * store until `ttlMs` from now, or until the returned release is called. A second request
   * while the lease runs gets ThrottleLimitedError (429 / `410`). Throws the error to answer
   * with. While the store fails, the lease is held in the container's memory.
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
    let heldUntil: number | undefined;
    let inMemory = false;
    try {
      const result = await this.store.acquireLease(key, token, nowMs + ttlMs, nowMs);
      heldUntil = result.acquired ? undefined : result.untilMs;
    } catch (error) {
      this.storeFailed(error, options.metrics, options.log);
      inMemory = true;
      heldUntil = this.outage.acquireLease(key, token, nowMs + ttlMs, nowMs);
    }
    if (heldUntil !== undefined) throw new ThrottleLimitedError(what, (heldUntil - nowMs) / 1000);
    if (inMemory) return async () => this.outage.releaseLease(key, token);
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
}

/** The error a store failure answers with under the closed policy. */
export function unavailable(): ServiceError {
  return new UsageStoreUnavailableError(new Error('the usage store did not answer'));
}
