/**
 * The meter of bulk work (`cancel-reserved`): one request unit of the caller's plan, and of the
 * account's, for every call the walk sends upstream, each page read and each cancel, as the
 * platform counts them. Units are taken in blocks, one store write per plan for a page of work
 * (the walk says how many calls come next: `expect`), and what the blocks leave unused is given
 * back when the walk ends (`finish`). Apart from the gate, so that only the function that does
 * bulk work carries it.
 *
 * Within the caller's rate: a block takes a block's worth of tokens at once (the work expected,
 * up to the bucket's burst), and when the bucket holds fewer the meter waits until it holds
 * them, as long as the walk's time allows: one write, where taking what is there would make
 * one a token. When a quota refuses (after the block shrank to what it leaves), or the time
 * cannot cover the wait for the tokens, the meter stops: every later `take` answers the
 * refusal, and the walk answers what it did and what is left (`remaining`).
 *
 * While the store fails, the rate is held from the container's memory (`gate.outage`) and the
 * failure policy decides the quotas, as for a request (admission.ts).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import {
  QuotaExceededError,
  RateLimitedError,
  type ServiceError,
  UsageStoreUnavailableError,
} from '../core/errors.ts';
import type { Logger } from '../core/log.ts';
import { type MetricRecorder, USAGE_METRICS, type UsageGate } from './gate.ts';
import type { Refusal } from './limits.ts';
import { NO_COUNTS, type Plans } from './plan.ts';
import { rateLimitFields } from './rate-limit-headers.ts';
import {
  giveBackAll,
  type Held,
  hasQuota,
  heldPart,
  type Instant,
  type Seen,
  type Subject,
  subjectsOf,
  takeFromSubject,
} from './taking.ts';
import { planView, subjectState } from './views.ts';

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

interface Block {
  readonly held: Held[];
  readonly units: number;
  used: number;
}

/** A plan's part of a block: units (none: refused by the policy), or the plan's refusal. */
type PlanTake = { units: number; held: Held[]; seen?: Seen } | { refusal: Refusal };

interface MeterOptions {
  readonly metrics?: MetricRecorder;
  readonly log: Logger;
}

/**
 * The meter of a caller's bulk walk, over the container's gate; `finish` and `fields` for the
 * binding that ends it (lib/http/parts.ts, meteringOf).
 */
export class BulkMeter implements CallMeter {
  readonly #subjects: Subject[];
  readonly #blocks: Block[] = [];
  readonly #seen: (Seen | undefined)[] = [];
  #expected = 1;
  /** The store failed during this walk: the rest is taken by the policy and memory. */
  #down = false;
  #stopped: ServiceError | undefined;
  #refilling: Promise<void> | undefined;

  readonly #gate: UsageGate;
  readonly #options: MeterOptions;

  constructor(gate: UsageGate, callerId: string, plans: Plans, options: MeterOptions) {
    this.#gate = gate;
    this.#options = options;
    this.#subjects = subjectsOf(callerId, plans);
  }

  expect(calls: number): void {
    this.#expected = Math.max(1, calls);
  }

  async take(canWait: (ms: number) => boolean): Promise<ServiceError | undefined> {
    while (this.#subjects.length > 0 && !this.#stopped) {
      const block = this.#blocks.find((each) => each.used < each.units);
      if (block) {
        block.used += 1;
        this.#expected = Math.max(1, this.#expected - 1);
        return undefined;
      }
      this.#refilling ??= this.#refill(canWait).finally(() => {
        this.#refilling = undefined;
      });
      await this.#refilling;
    }
    return this.#stopped;
  }

  unspent(): void {
    const block = this.#blocks.findLast((each) => each.used > 0);
    if (block) block.used -= 1;
  }

  /** Gives back what the blocks left unused: the walk has ended. */
  async finish(): Promise<void> {
    const unused = this.#blocks.flatMap((block) =>
      block.used < block.units ? heldPart(block.held, block.units - block.used, block.units) : [],
    );
    for (const block of this.#blocks) block.used = block.units;
    await giveBackAll(this.#gate.store, unused, this.#options.log);
  }

  /** The RateLimit fields of the caller's plans as the walk left them. */
  fields(): Record<string, string> {
    const gate = this.#gate;
    const seen = this.#seen;
    const at = gate.instant();
    return rateLimitFields(
      this.#subjects.map((subject, index) =>
        planView(subject, subjectState(subject, seen[index], gate.store, at), ONE, at),
      ),
    );
  }

  /** One plan's part of a block: from the store, or, while it fails, by the policy and memory. */
  async #takeFrom(subject: Subject, most: number, at: Instant): Promise<PlanTake> {
    const { store, random, outage, policy } = this.#gate;
    const { log, metrics } = this.#options;
    const take = { store, random, log, at, most, exact: false, subject, perUnit: ONE };
    // Within the while after the store failed, the rest of the walk leaves it alone.
    this.#down ||= !this.#gate.asksStore(metrics);
    if (!this.#down) {
      try {
        const taken = await takeFromSubject(take);
        this.#gate.storeAnswered();
        return taken;
      } catch (error) {
        this.#down = true;
        this.#gate.storeFailed(error, metrics, log);
      }
    }
    // Closed, a plan with quotas takes nothing while the store fails: the walk stops.
    if (policy === 'closed' && hasQuota(subject)) return { units: 0, held: [] };
    return takeFromSubject({ ...take, down: outage });
  }

  /**
   * Up to `want` units from every plan, as many as the tightest admits, pushed as a block; or
   * the refusal that stopped it (the policy's refusal ends the walk here).
   */
  async #takeBlock(want: number): Promise<{ refusal: Refusal; subject: Subject } | undefined> {
    const { store } = this.#gate;
    const { log } = this.#options;
    const at = this.#gate.instant();
    let units = want;
    let held: Held[] = [];
    for (const [index, subject] of this.#subjects.entries()) {
      const part = await this.#takeFrom(subject, units, at);
      if ('refusal' in part || part.units === 0) {
        await giveBackAll(store, held, log);
        if ('refusal' in part) return { refusal: part.refusal, subject };
        this.#stopped = new UsageStoreUnavailableError();
        return undefined;
      }
      if (part.units < units) {
        // The tighter plan took fewer: the others' extra units go back.
        await giveBackAll(store, heldPart(held, units - part.units, units), log);
        held = heldPart(held, part.units, units);
        units = part.units;
      }
      held = [...held, ...part.held];
      this.#seen[index] = part.seen;
    }
    this.#blocks.push({ held, units, used: 0 });
    return undefined;
  }

  /** One more block, waiting for the bucket as the time allows; or the meter stops. */
  async #refill(canWait: (ms: number) => boolean): Promise<void> {
    const got = await this.#takeBlock(Math.min(this.#expected, MAX_BLOCK));
    if (!got) return;
    const { refusal, subject } = got;
    if (refusal.kind === 'rate' && canWait(refusal.retryAfterMs)) {
      await sleep(Math.ceil(refusal.retryAfterMs));
      return;
    }
    this.#options.metrics?.count(USAGE_METRICS.refusals, {
      Plan: subject.holder,
      Limit: refusal.limit,
    });
    // Its answer carries the plans' fields as the walk left them (lib/http/parts.ts).
    const seconds = refusal.retryAfterMs / 1000;
    this.#stopped =
      refusal.kind === 'rate'
        ? new RateLimitedError(subject.holder, seconds)
        : new QuotaExceededError(subject.holder, refusal.limit, seconds);
  }
}
