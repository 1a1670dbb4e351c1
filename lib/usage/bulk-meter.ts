/**
 * The meter of bulk work (`cancel-reserved`): one request unit of the caller's plans, and of the
 * account's, for every call the walk sends upstream, each page read and each cancel, as the
 * platform counts them. Units are taken in blocks, one store write per plan for a page of work
 * (the walk says how many calls come next: `expect`), and what a block leaves unused is given
 * back when the walk ends (`finish`).
 *
 * Within the caller's rate: a block takes as many tokens as the bucket holds (up to the work
 * expected and the burst), and when it holds too few the meter waits for them, as long as the
 * walk's time allows. When a quota refuses, or the time cannot cover the wait for a token, the
 * meter stops: every later `take` answers the refusal, and the walk answers what it did and
 * what is left (`remaining`).
 *
 * While the store fails, the rate is held from the container's memory (outage.ts) and the
 * failure policy decides the quotas, as for a request.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import {
  QuotaExceededError,
  RateLimitedError,
  type ServiceError,
  UsageStoreUnavailableError,
} from '../core/errors.js';
import type { Logger } from '../core/log.js';
import { type MetricRecorder, USAGE_METRICS } from './admission.js';
import { bucketAt, type Refusal } from './limits.js';
import type { OutageMemory } from './outage.js';
import { NO_COUNTS } from './plan.js';
import { rateLimitFields } from './rate-limit-headers.js';
import type { UsageStore } from './store.js';
import {
  giveBackAll,
  type Held,
  heldPart,
  type Instant,
  type Seen,
  type Subject,
  takeFromSubject,
} from './taking.js';
import { planView, subjectState } from './views.js';

/** What a bulk walk spends of its caller's plans: a unit before each call it sends. */
export interface CallMeter {
  /** The calls the walk expects to make next: the next block takes up to this many. */
  expect(calls: number): void;
  /**
   * A unit for one call: undefined once taken, or the error that stops the walk (a quota
   * spent; a rate whose next token comes later than `canWait` allows).
   */
  take(canWait: (ms: number) => boolean): Promise<ServiceError | undefined>;
  /** The unit of a call that never went out (not sent, or it could not connect) comes back. */
  unspent(): void;
}

/** The most units one block takes: a page of work. */
const MAX_BLOCK = 100;
const ONE = { ...NO_COUNTS, requests: 1 };

/** What the gate lends its meters. */
export interface MeterGate {
  readonly store: UsageStore;
  readonly policy: 'open' | 'closed';
  readonly log: Logger;
  readonly outage: OutageMemory;
  readonly random: () => number;
  instant(): Instant;
  storeFailed(error: unknown, metrics: MetricRecorder | undefined, log: Logger | undefined): void;
}

interface Block {
  readonly held: Held[];
  readonly units: number;
  used: number;
}

/** A block taken, or what stopped it. */
type BlockTake =
  | { readonly units: number; readonly held: Held[] }
  | { readonly refusal: Refusal; readonly subject: Subject }
  | { readonly error: ServiceError };

export class BulkMeter implements CallMeter {
  private readonly blocks: Block[] = [];
  private readonly seen: (Seen | undefined)[] = [];
  private expected = 1;
  private down = false;
  private stopped: ServiceError | undefined;
  private refilling: Promise<void> | undefined;
  /** Units taken, and the blocks they were taken in (for the walk's log line). */
  taken = 0;
  writes = 0;

  constructor(
    private readonly gate: MeterGate,
    private readonly subjects: readonly Subject[],
    private readonly options: { readonly metrics?: MetricRecorder; readonly log: Logger },
  ) {}

  expect(calls: number): void {
    this.expected = Math.max(1, calls);
  }

  async take(canWait: (ms: number) => boolean): Promise<ServiceError | undefined> {
    if (this.subjects.length === 0) return undefined;
    for (;;) {
      if (this.stopped) return this.stopped;
      const block = this.blocks.find((each) => each.used < each.units);
      if (block) {
        block.used += 1;
        this.expected = Math.max(1, this.expected - 1);
        return undefined;
      }
      this.refilling ??= this.refill(canWait).finally(() => {
        this.refilling = undefined;
      });
      await this.refilling;
    }
  }

  unspent(): void {
    const block = this.blocks.findLast((each) => each.used > 0);
    if (block) block.used -= 1;
  }

  /** Gives back what the blocks left unused; the walk has ended. */
  async finish(): Promise<void> {
    const unused = this.blocks.flatMap((block) =>
      block.used < block.units ? heldPart(block.held, block.units - block.used, block.units) : [],
    );
    for (const block of this.blocks) block.used = block.units;
    if (unused.length > 0) await giveBackAll(this.gate.store, unused, this.options.log);
  }

  /** Units the walk spent (taken, less those it did not use); read before `finish`. */
  get spent(): number {
    return this.blocks.reduce((sum, block) => sum + block.used, 0);
  }

  /** The RateLimit fields of the caller's plans as the walk left them. */
  fields(): Record<string, string> {
    const at = this.gate.instant();
    const views = this.subjects.map((subject, index) => {
      const state = subjectState(subject, this.seen[index], this.gate.store, at);
      return planView(subject.holder, subject.rules, state, ONE, at);
    });
    return rateLimitFields(views);
  }

  /** One more block, waiting for the bucket as the time allows; or the meter stops. */
  private async refill(canWait: (ms: number) => boolean): Promise<void> {
    const want = Math.min(this.expected, MAX_BLOCK);
    const wait = this.untilBlock(want);
    if (wait > 0 && canWait(wait)) await sleep(wait);
    const got = await this.takeBlock(want);
    if ('units' in got) {
      this.blocks.push({ held: got.held, units: got.units, used: 0 });
      this.taken += got.units;
      return;
    }
    if ('error' in got) {
      this.stopped = got.error;
      return;
    }
    const { refusal, subject } = got;
    if (refusal.kind === 'rate' && canWait(refusal.retryAfterMs)) {
      await sleep(Math.ceil(refusal.retryAfterMs));
      return;
    }
    const dimensions = { Plan: subject.holder, Limit: refusal.limit };
    this.options.metrics?.count(USAGE_METRICS.refusals, dimensions);
    const headers = this.fields();
    const seconds = refusal.retryAfterMs / 1000;
    this.stopped =
      refusal.kind === 'rate'
        ? new RateLimitedError(subject.holder, seconds, headers)
        : new QuotaExceededError(subject.holder, refusal.limit, seconds, headers);
  }

  /**
   * How long until each one-item bucket, as the container last saw it, holds `want` tokens (up
   * to its burst): waiting for them makes one write of what would be several.
   */
  private untilBlock(want: number): number {
    const at = this.gate.instant();
    let ms = 0;
    for (const { layout, rules } of this.subjects) {
      if (layout.shards.length > 0 || !rules.rate) continue;
      const state = this.gate.store.peek(layout.key);
      if (!state) continue;
      const need = Math.min(want, rules.rate.burst);
      const bucket = bucketAt(state.tat, rules.rate, at.nowMs);
      if (bucket.available >= need) continue;
      const missing = need - bucket.available;
      ms = Math.max(ms, bucket.nextInMs + ((missing - 1) * rules.rate.intervalUs) / 1000);
    }
    return ms;
  }

  /** Up to `want` units from every plan: as many as the tightest admits. */
  private async takeBlock(want: number): Promise<BlockTake> {
    const at = this.gate.instant();
    let units = want;
    let held: Held[] = [];
    for (const [index, subject] of this.subjects.entries()) {
      const part = await this.takeFrom(subject, units, at);
      if ('units' in part && part.units > 0) {
        this.seen[index] = part.seen;
        if (part.units < units) {
          // The tighter plan took fewer: the others' extra units go back.
          await giveBackAll(
            this.gate.store,
            heldPart(held, units - part.units, units),
            this.options.log,
          );
          held = heldPart(held, part.units, units);
          units = part.units;
        }
        held = [...held, ...part.held];
        continue;
      }
      await giveBackAll(this.gate.store, held, this.options.log);
      return 'units' in part ? { error: unavailableError() } : part;
    }
    this.writes += 1;
    return { units, held };
  }

  /** One plan's part of a block: from the store, or from memory while it fails. */
  private async takeFrom(
    subject: Subject,
    most: number,
    at: Instant,
  ): Promise<
    { units: number; held: Held[]; seen: Seen | undefined } | { refusal: Refusal; subject: Subject }
  > {
    if (!this.down) {
      try {
        const take = await takeFromSubject({
          store: this.gate.store,
          random: this.gate.random,
          subject,
          perUnit: ONE,
          most,
          exact: false,
          at,
          log: this.options.log,
        });
        return take.ok ? take : { refusal: take.refusal, subject };
      } catch (error) {
        this.down = true;
        this.gate.storeFailed(error, this.options.metrics, this.options.log);
      }
    }
    return this.fromMemory(subject, most, at);
  }

  /** While the store fails: the rate from memory; quotas uncounted (open), or none (closed). */
  private fromMemory(subject: Subject, most: number, at: Instant) {
    const hasQuota =
      Object.keys(subject.rules.day).length + Object.keys(subject.rules.month).length > 0;
    // Closed, a plan with quotas admits nothing: zero units, which stops the block.
    if (this.gate.policy === 'closed' && hasQuota) return { units: 0, held: [], seen: undefined };
    const { key } = subject.layout;
    const outage = this.gate.outage;
    const units = outage.takeRateUpTo(key, subject.rules.rate, most, at);
    if (units > 0) return { units, held: [], seen: undefined };
    // Not even one token: the refusal says when the next frees.
    const refusal = outage.takeRate(key, subject.rules.rate, 1, at);
    return refusal ? { refusal, subject } : { units: 1, held: [], seen: undefined };
  }
}

function unavailableError(): ServiceError {
  return new UsageStoreUnavailableError(new Error('the usage store did not answer'));
}
