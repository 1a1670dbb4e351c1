/**
 * What one container last saw of each usage item, and when: the DynamoDB store's guess of the
 * forms its next write takes (dynamo-usage-item.ts), the refusals it can answer without a call,
 * and the rate at which the subject's requests arrive from every container together (its day
 * counter between two sightings, smoothed), and how long the container holds off a bucket
 * whose token another container took. Bounded: far more items than a secret's callers have,
 * the oldest forgotten first.
 */
import type { Demand, Refusal, UsageState } from './limits.ts';

export interface Sighting {
  readonly state: UsageState;
  readonly at: number;
  /** The subject's requests per ms, every container's together; 0 while unknown. */
  readonly perMs: number;
  /** Tokens of the bucket lost in a row to other containers' writes (`lost`). */
  readonly losses?: number;
  /** Until when (ms) the container writes no more for the bucket: it holds off (`lost`). */
  readonly holdUntil?: number;
}

/** The longest a container holds off a bucket after losing its token: a quarter second. */
const MAX_HOLD_MS = 250;

/** Items remembered per container. */
const MAX_SIGHTINGS = 4000;

export class Sightings extends Map<string, Sighting> {
  /** The item as seen at `at` (undefined: there is none, or it was not read). */
  remember(key: string, state: UsageState | undefined, at: number): void {
    const last = this.get(key);
    this.delete(key);
    if (!state) return;
    if (this.size >= MAX_SIGHTINGS) this.delete(this.keys().next().value as string);
    let perMs = last?.perMs ?? 0;
    if (last && last.state.day === state.day && at > last.at) {
      const arrived = (state.dayCounts.requests - last.state.dayCounts.requests) / (at - last.at);
      perMs = last.perMs === 0 ? arrived : 0.7 * last.perMs + 0.3 * arrived;
    }
    this.set(key, { state, at, perMs });
  }

  /**
   * A write the bucket refused: another container took the token this one saw coming. Every
   * container that saw it coming wrote at the same moment, so that a caller flooding many
   * containers would cost its item a write per container and token. The losers hold off past
   * the next token, for a random while that doubles with every loss in a row (up to a quarter
   * second), while the winner keeps taking each token as it comes: the item's writes stay
   * near the rate itself, however many containers the flood reaches. Returns the refusal
   * with the hold in its wait.
   */
  lost(
    key: string,
    refusal: Refusal,
    losses: number,
    holdMs: number,
    random: () => number,
  ): Refusal {
    const last = this.get(key);
    if (!last) return refusal;
    const hold = random() * Math.min(MAX_HOLD_MS, holdMs * 2 ** (losses - 1));
    const retryAfterMs = refusal.retryAfterMs + hold;
    this.set(key, { ...last, losses, holdUntil: last.at + retryAfterMs });
    return { ...refusal, retryAfterMs };
  }
}

/**
 * Whether the bucket is more likely running than full, though the item seen last had it full:
 * other containers' requests run it too. With requests arriving independently at λ a second,
 * one came in the last interval T (so the bucket runs) with the chance 1 - e^(-λT): more
 * likely than not once λT > ln 2, a caller at 70 % of its rate or more.
 */
export function likelyRunning(last: Sighting | undefined, demand: Demand): boolean {
  const rate = demand.rules.rate;
  if (!last || !rate) return false;
  return last.perMs * (rate.intervalUs / 1000) > Math.LN2;
}
