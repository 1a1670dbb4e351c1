/** Largest request body the gateway accepts (413 / 430 above it). */
export const MAX_BODY_BYTES = 10 * 1024 * 1024;

/** A signed timestamp this far from the gateway clock, or farther, is refused. */
export const MAX_CLOCK_SKEW_MS = 5 * 60 * 1000;
