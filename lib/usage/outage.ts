/**
 * What a container holds while the usage store cannot answer: every planned subject's token
 * bucket, and the leases of long-running routes, in its own memory. So an outage of the store
 * never lifts a rate: each container keeps each caller (and the account) to its plan's rate
 * from memory, and a caller to one cancel-reserved at a time within the container. What memory
 * cannot hold is a quota, which every container shares: the failure policy decides those
 * (USAGE_STORE_FAILURE, gate.ts).
 *
 * Each bucket starts full when the container first needs it: across N containers an outage
 * lets a caller through at up to N times its rate, never unbounded.
 */
import { bucketAt, judge, type Refusal } from './limits.js';
import type { RateRule } from './plan.js';
import type { Instant } from './taking.js';

/** Buckets and leases remembered per container. */
const MAX_REMEMBERED = 2000;

function remember<V>(map: Map<string, V>, key: string, value: V): void {
  map.delete(key);
  if (map.size >= MAX_REMEMBERED) map.delete(map.keys().next().value as string);
  map.set(key, value);
}

export class OutageMemory {
  private readonly buckets = new Map<string, number>();
  private readonly leases = new Map<string, { token: string; untilMs: number }>();

  /**
   * Takes `units` tokens of the subject's bucket (none when its plan has no rate), or says when
   * the next frees.
   */
  takeRate(
    key: string,
    rate: RateRule | undefined,
    units: number,
    at: Instant,
  ): Refusal | undefined {
    if (!rate) return undefined;
    const tat = this.buckets.get(key) ?? 0;
    const state = { tat, day: '', dayCounts: NONE, month: '', monthCounts: NONE };
    const counts = { ...NONE, requests: units };
    const verdict = judge(state, { ...at, counts, rules: { rate, day: {}, month: {} } });
    if (!verdict.ok) return verdict.refusal;
    remember(this.buckets, key, verdict.next.tat);
    return undefined;
  }

  /** As many tokens of the bucket as are free now, up to `most` (a block of bulk work). */
  takeRateUpTo(key: string, rate: RateRule | undefined, most: number, at: Instant): number {
    if (!rate) return most;
    const free = bucketAt(this.buckets.get(key) ?? 0, rate, at.nowMs).available;
    const units = Math.min(most, free);
    return units > 0 && !this.takeRate(key, rate, units, at) ? units : 0;
  }

  /** Takes the lease unless another holder's runs past now; when it ends, if refused. */
  acquireLease(key: string, token: string, untilMs: number, nowMs: number): number | undefined {
    const held = this.leases.get(key);
    if (held && held.untilMs > nowMs) return held.untilMs;
    remember(this.leases, key, { token, untilMs });
    return undefined;
  }

  releaseLease(key: string, token: string): void {
    if (this.leases.get(key)?.token === token) this.leases.delete(key);
  }
}

const NONE = { requests: 0, translate: 0, tts: 0 };
