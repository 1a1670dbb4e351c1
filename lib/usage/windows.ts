/**
 * The windows quotas count in: the UTC day and the UTC month, named by their ISO 8601 date
 * (`2026-11-25`, `2026-11`). A window's counters start afresh at the first request of the next
 * one; nothing runs at midnight.
 */

const DAY_MS = 86_400_000;

/** The UTC day of an instant: `2026-11-25`. */
export function dayOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** The UTC month of an instant: `2026-11`. */
export function monthOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 7);
}

/** When the UTC day of an instant ends (the next day's first millisecond). */
export function dayEndOf(ms: number): number {
  return Math.floor(ms / DAY_MS) * DAY_MS + DAY_MS;
}

/** When the UTC month of an instant ends (the next month's first millisecond). */
export function monthEndOf(ms: number): number {
  const date = new Date(ms);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1);
}

/** When the UTC month of an instant began. */
function monthStartOf(ms: number): number {
  const date = new Date(ms);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
}

/** The windows of one instant, as an admission reads them. */
export interface Windows {
  readonly day: string;
  readonly month: string;
  readonly dayEndsAt: number;
  readonly monthEndsAt: number;
  /** The month's length in seconds (the `w` of its RateLimit policy). */
  readonly monthSeconds: number;
}

export function windowsOf(ms: number): Windows {
  const monthEndsAt = monthEndOf(ms);
  return {
    day: dayOf(ms),
    month: monthOf(ms),
    dayEndsAt: dayEndOf(ms),
    monthEndsAt,
    monthSeconds: (monthEndsAt - monthStartOf(ms)) / 1000,
  };
}

export const DAY_SECONDS = DAY_MS / 1000;
