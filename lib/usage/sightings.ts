/**
 * What one container last saw of each usage item, and when: the DynamoDB store's guess of the
 * forms its next write takes (dynamo-usage-item.ts), the refusals it can answer without a call,
 * and the rate at which the subject's requests arrive from every container together (its day
 * counter between two sightings, smoothed). Bounded: far more items than a secret's callers
 * have, the oldest forgotten first.
 */
import type { Demand, UsageState } from './limits.js';

export interface Sighting {
  readonly state: UsageState;
  readonly at: number;
  /** The subject's requests per ms, every container's together; 0 while unknown. */
  readonly perMs: number;
}

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
