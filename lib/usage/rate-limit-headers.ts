/**
 * The `RateLimit-Policy` and `RateLimit` response header fields of the IETF HTTPAPI draft
 * "RateLimit header fields for HTTP" (draft-ietf-httpapi-ratelimit-headers, revision 11, May
 * 2026). Both are Structured Field Lists (RFC 9651) of Items whose value is a String naming a
 * policy, with Parameters:
 *
 *   RateLimit-Policy: "caller-rate";q=5;w=1;pgw-burst=10, "caller-day";q=10000;w=86400
 *   RateLimit:        "caller-rate";r=9;t=1, "caller-day";r=9987;t=41220
 *
 * - a policy (RateLimit-Policy) carries its quota `q` (a non-negative Integer) and its window
 *   `w` (Integer seconds, above 0); a quota unit other than requests would go in `qu`, whose
 *   values the draft's registry lists: `requests`, `content-bytes`, `concurrent-requests`.
 *   Characters are none of them, so a character quota says so in a parameter prefixed with a
 *   vendor identifier, as the draft asks of implementation-specific parameters:
 *   `pgw-qu="characters"`. A client that does not know it reads the quota in the draft's
 *   default unit, requests; a `qu` outside the registry could make a strict client drop the
 *   whole field as malformed, the request policies with it;
 * - a service limit (RateLimit) carries the quota left `r` and `t`, the seconds within which
 *   the client can use no more than `r`: for a quota, until its UTC day or month ends; for the
 *   token bucket, until its next token (0 when it is full), the moment a refused request's
 *   Retry-After names;
 * - the token bucket's policy is its sustained rate, `q=<rateRps>;w=1`, with its burst in
 *   `pgw-burst`, since a bucket allows more than q at once when it is full.
 *
 * One item per limit that applies to the request: the bucket and the request quotas always,
 * a character quota only to a request that spends that API's characters. The items of the
 * caller's plan come first, then the account's; names say whose (`caller-...`, `account-...`)
 * and never name a caller.
 */
import type { PlanHolder } from '../core/errors.ts';
import { bucketAt, countsIn, type UsageState } from './limits.ts';
import { COUNTERS, type Counter, type Counts, type Rules, type WindowName } from './plan.ts';
import { DAY_SECONDS, type Windows } from './windows.ts';

// ---------------------------------------------------------------------------------------
// Structured Field Values (RFC 9651): the serialization of a List of Items with Parameters.

/** The bare items these fields use: an Integer or a String. */
type BareItem = number | string;

export interface ListMember {
  /** The item's value: a String. */
  readonly value: string;
  readonly params: readonly (readonly [key: string, value: BareItem])[];
}

const KEY = /^[a-z*][a-z0-9_\-.*]*$/;
const MAX_INTEGER = 999_999_999_999_999;

function serializeBareItem(value: BareItem): string {
  if (typeof value === 'string') {
    if (!/^[\x20-\x7e]*$/.test(value)) throw new RangeError('an sf-string is printable ASCII');
    return `"${value.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
  }
  if (!Number.isInteger(value) || Math.abs(value) > MAX_INTEGER) {
    throw new RangeError('an sf-integer is a whole number of at most 15 digits');
  }
  return String(value);
}

/** A List (RFC 9651, section 4.1.1): members joined by a comma and one space. */
export function serializeList(members: readonly ListMember[]): string {
  return members
    .map(
      ({ value, params }) =>
        serializeBareItem(value) +
        params
          .map(([key, param]) => {
            if (!KEY.test(key)) throw new RangeError(`not an sf-key: ${key}`);
            return `;${key}=${serializeBareItem(param)}`;
          })
          .join(''),
    )
    .join(', ');
}

// ---------------------------------------------------------------------------------------
// The plans' policies and service limits.

/** One plan's part of a response's fields: whose it is, its rules and its usage now. */
export interface PlanView {
  readonly holder: PlanHolder;
  readonly rules: Rules;
  /** The usage after the request (admitted) or as it refused it; undefined: none yet. */
  readonly state: UsageState | undefined;
  /** What the request spends: which character quotas apply to it. */
  readonly counts: Counts;
  readonly nowMs: number;
  readonly windows: Windows;
}

const UNIT_PARAM = 'pgw-qu';
const BURST_PARAM = 'pgw-burst';

function policyName(holder: PlanHolder, window: WindowName, counter: Counter): string {
  return counter === 'requests' ? `${holder}-${window}` : `${holder}-${window}-${counter}`;
}

const seconds = (ms: number) => Math.max(0, Math.ceil(ms / 1000));

/** The two fields for the plans of a request; none when no plan applies. */
export function rateLimitFields(views: readonly PlanView[]): Record<string, string> {
  const policies: ListMember[] = [];
  const limits: ListMember[] = [];
  for (const { holder, rules, state, counts, nowMs, windows } of views) {
    if (rules.rate) {
      const name = `${holder}-rate`;
      const bucket = bucketAt(state?.tat ?? 0, rules.rate, nowMs);
      policies.push({
        value: name,
        params: [
          ['q', rules.rate.rps],
          ['w', 1],
          [BURST_PARAM, rules.rate.burst],
        ],
      });
      limits.push({
        value: name,
        params: [
          ['r', bucket.available],
          ['t', seconds(bucket.nextInMs)],
        ],
      });
    }
    for (const window of ['day', 'month'] as const) {
      const used = state ? countsIn(state, window, windows) : undefined;
      const endsAt = window === 'day' ? windows.dayEndsAt : windows.monthEndsAt;
      for (const counter of COUNTERS) {
        const quota = rules[window][counter];
        if (quota === undefined || (counter !== 'requests' && counts[counter] === 0)) continue;
        const name = policyName(holder, window, counter);
        policies.push({
          value: name,
          params: [
            ['q', quota],
            ['w', window === 'day' ? DAY_SECONDS : windows.monthSeconds],
            ...(counter === 'requests' ? [] : [[UNIT_PARAM, 'characters'] as const]),
          ],
        });
        limits.push({
          value: name,
          params: [
            ['r', Math.max(0, quota - (used?.[counter] ?? 0))],
            ['t', seconds(endsAt - nowMs)],
          ],
        });
      }
    }
  }
  if (policies.length === 0) return {};
  return { 'RateLimit-Policy': serializeList(policies), RateLimit: serializeList(limits) };
}
