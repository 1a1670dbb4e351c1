/**
 * A request's admission: once it is authenticated, authorized and validated, and before
 * anything goes upstream, whether the caller's plan and the account's admit it.
 *
 *   const admission = await admit(usageGateOf(runtime), { callerId, plans, units, metrics, log });
 *   if (!admission.admitted) throw admission.error;           // 429 / 420 or 400; 503 / 500
 *   ...the upstream call; when nothing of the request reached the platform (it was refused or
 *      abandoned before its call went out, or the call could not connect):
 *      await admission.giveBack({ keepToken: true });   // its quota units; the token stays taken
 *   ...every answer, success or error, carries admission.headers.
 *
 * - A caller without a plan, while the secret has no accountPlan, costs nothing: no store call,
 *   no header.
 * - The caller's plan is judged first, then the account's: a caller over its own plan never
 *   writes the account's records, which every caller shares. When the account refuses a request
 *   the caller's plan took, the caller's units are given back. Refused requests count nothing.
 * - While the store fails: each subject's rate from memory; its quotas by the policy (gate.ts).
 */

import { isThrottle } from '../core/dynamo-db.ts';
import {
  QuotaExceededError,
  RateLimitedError,
  type ServiceError,
  UsageStoreUnavailableError,
} from '../core/errors.ts';
import type { Logger } from '../core/log.ts';
import { type MetricRecorder, USAGE_METRICS, type UsageGate } from './gate.ts';
import type { Refusal } from './limits.ts';
import type { Counts, Plans } from './plan.ts';
import { rateLimitFields } from './rate-limit-headers.ts';
import {
  giveBackAll,
  hasQuota,
  type Instant,
  type Seen,
  type Subject,
  type SubjectTake,
  subjectsOf,
  takeFromSubject,
} from './taking.ts';
import { countsOf, type Units } from './units.ts';
import { monthShareUsed, planView, subjectState } from './views.ts';

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

export interface Admitted {
  readonly admitted: true;
  /** `RateLimit-Policy` and `RateLimit`, for every answer to this request; none without a plan. */
  readonly headers: Readonly<Record<string, string>>;
  /**
   * Counts `requests` more units in the caller's plan alone, never refused (what a hand-off
   * costs by its size); the RateLimit fields after them. Its day and month counters count
   * them; the rate's bucket does not.
   */
  charge(requests: number): Promise<Readonly<Record<string, string>>>;
  /**
   * Takes the request's units back (nothing of it reached the platform). Once. With
   * `keepToken`, its quota units only: the token it took of a rate stays taken, so that
   * requests refused after their admission are still held to the rate.
   */
  giveBack(options?: { readonly keepToken?: boolean }): Promise<void>;
}

interface Refused {
  readonly admitted: false;
  /** The error to answer with: 429 / `420` or `400` with Retry-After, or 503 / `500`. */
  readonly error: ServiceError;
}

export type Admission = Admitted | Refused;

/** One subject's part of an admission. */
type Part =
  | { readonly kind: 'taken'; readonly subject: Subject; readonly take: SubjectTake & { ok: true } }
  /** Refused by its records (`seen`), or by its rate from memory (none). */
  | {
      readonly kind: 'refused';
      readonly subject: Subject;
      readonly refusal: Refusal;
      readonly seen?: Seen;
    }
  /** The store failed: the rate from memory admits it; its quotas are not counted (open) or refuse it (closed). */
  | { readonly kind: 'uncounted' | 'unavailable'; readonly subject: Subject };

/**
 * The `RateLimit-Policy` of a request refused before its admission (bad input, its action
 * unknown): the plans that hold the caller, read from the secret alone, with no call to the
 * store (the request took nothing, and its state was not read). None without a plan.
 */
export function policyOf(
  gate: UsageGate,
  request: Pick<AdmitRequest, 'callerId' | 'plans' | 'units'>,
): Record<string, string> {
  const subjects = subjectsOf(request.callerId, request.plans);
  // Parts whose state is not known: their fields are the policies alone.
  const parts = subjects.map((subject): Part => ({ kind: 'uncounted', subject }));
  return subjects.length ? fieldsOf(gate, parts, countsOf(request.units), gate.instant()) : {};
}

/** The admission of a caller no plan holds: nothing taken, no field, nothing to give back. */
const NOTHING_HELD: Admitted = {
  admitted: true,
  headers: {},
  charge: async () => ({}),
  giveBack: async () => {},
};

/** Whether the plans admit the request (module comment). */
export async function admit(gate: UsageGate, request: AdmitRequest): Promise<Admission> {
  const { callerId, plans, units, metrics } = request;
  const counts = countsOf(units);
  if (units.characters && units.characters.count > 0) {
    const dimensions = { Caller: callerId, Api: units.characters.api };
    metrics?.count(USAGE_METRICS.callerCharacters, dimensions, units.characters.count);
  }
  const subjects = subjectsOf(callerId, plans);
  if (subjects.length === 0) return NOTHING_HELD;
  const at = gate.instant();
  const parts: Part[] = [];
  // Within the while after the store failed, the request is decided from memory at once.
  let down = !gate.asksStore(metrics);
  for (const subject of subjects) {
    const [part, failed] = await takePart(gate, subject, counts, at, request, down);
    // The store failed: it is not asked again for this request.
    down ||= failed;
    parts.push(part);
    if (part.kind === 'unavailable') {
      await giveBackParts(gate, parts, request.log);
      return { admitted: false, error: new UsageStoreUnavailableError() };
    }
    if (part.kind === 'refused') {
      // The caller's rate token stays taken when the account refuses: else a caller would
      // escape its own rate while the account is spent, a write on its item each time.
      await giveBackParts(gate, parts, request.log, true);
      const dimensions = { Plan: part.subject.holder, Limit: part.refusal.limit };
      metrics?.count(USAGE_METRICS.refusals, dimensions);
      return { admitted: false, error: refusalError(gate, part, parts, counts, at) };
    }
  }
  return admitted(gate, parts, counts, at, request);
}

/**
 * One subject's part: from the store; or, while it fails (`down`, or its take throws), refused
 * by the closed policy when the plan has quotas, else held to its rate from memory.
 */
async function takePart(
  gate: UsageGate,
  subject: Subject,
  counts: Counts,
  at: Instant,
  request: AdmitRequest,
  down: boolean,
): Promise<[Part, boolean]> {
  const log = request.log ?? gate.log;
  const options = { store: gate.store, random: gate.random, log, at, subject, perUnit: counts };
  const take = { ...options, most: 1, exact: true };
  if (!down) {
    try {
      const taken = await takeFromSubject(take);
      gate.storeAnswered();
      if (taken.ok) return [{ kind: 'taken', subject, take: taken }, false];
      return [{ kind: 'refused', subject, refusal: taken.refusal, seen: taken.seen }, false];
    } catch (error) {
      // A throttled item is its subject's alone: the other subjects, and the next request,
      // still ask the store. Anything else leaves the store alone for a while.
      if (isThrottle(error)) {
        gate.itemThrottled(error, request.metrics, request.log);
        return [await decidedAlone(gate, subject, take), false];
      }
      gate.storeFailed(error, request.metrics, request.log);
    }
  }
  return [await decidedAlone(gate, subject, take), true];
}

/**
 * A subject's part decided without the store: refused by the closed policy when the plan has
 * quotas, else held to its rate from memory.
 */
async function decidedAlone(
  gate: UsageGate,
  subject: Subject,
  take: Parameters<typeof takeFromSubject>[0],
): Promise<Part> {
  if (gate.policy === 'closed' && hasQuota(subject)) return { kind: 'unavailable', subject };
  const held = await takeFromSubject({ ...take, down: gate.outage });
  return held.ok
    ? { kind: 'uncounted', subject }
    : { kind: 'refused', subject, refusal: held.refusal };
}

async function giveBackParts(
  gate: UsageGate,
  parts: readonly Part[],
  log?: Logger,
  keepToken = false,
) {
  const held = parts.flatMap((part) => (part.kind === 'taken' ? part.take.held : []));
  const back = keepToken
    ? held.map(({ key, back }) => ({ key, back: { ...back, intervalUs: 0 } }))
    : held;
  await giveBackAll(gate.store, back, log ?? gate.log);
}

/** The parts' RateLimit fields: whole, or the policies only when a part's state is not known. */
function fieldsOf(gate: UsageGate, parts: readonly Part[], counts: Counts, at: Instant) {
  let known = true;
  const views = parts.map((part) => {
    const seen =
      part.kind === 'taken' ? part.take.seen : part.kind === 'refused' ? part.seen : undefined;
    known &&= seen !== undefined;
    const state = seen && subjectState(part.subject, seen, gate.store, at);
    return planView(part.subject, state, counts, at);
  });
  const fields = rateLimitFields(views);
  return known || !fields['RateLimit-Policy']
    ? fields
    : { 'RateLimit-Policy': fields['RateLimit-Policy'] };
}

function refusalError(
  gate: UsageGate,
  part: Part & { kind: 'refused' },
  parts: readonly Part[],
  counts: Counts,
  at: Instant,
): ServiceError {
  const headers = fieldsOf(gate, parts, counts, at);
  const { refusal, subject } = part;
  const seconds = refusal.retryAfterMs / 1000;
  return refusal.kind === 'rate'
    ? new RateLimitedError(subject.holder, seconds, headers)
    : new QuotaExceededError(subject.holder, refusal.limit, seconds, headers);
}

/** A plan without limits: what a count is judged by (it is never refused). */
const NO_LIMITS = { rate: undefined, day: {}, month: {} };

/**
 * Counts `requests` more units on the record the caller's part took from, as a count no limit
 * refuses (a hand-off's size); the fields after. A store that fails leaves them uncounted
 * (a warning; the outage is remembered), and the fields as they were.
 */
async function charge(
  gate: UsageGate,
  parts: readonly Part[],
  counts: Counts,
  requests: number,
  log: Logger,
  headers: Readonly<Record<string, string>>,
): Promise<Readonly<Record<string, string>>> {
  const caller = parts.find((part) => part.subject.holder === 'caller');
  if (caller?.kind !== 'taken' || requests <= 0) return headers;
  const key = caller.take.held[0]?.key;
  if (!key || !gate.asksStore()) return headers;
  const at = gate.instant();
  const more = { requests, translate: 0, tts: 0 };
  try {
    const taken = await gate.store.take(key, { ...at, counts: more, rules: NO_LIMITS });
    gate.storeAnswered();
    if (taken.taken) caller.take.seen.set(key, taken.state);
  } catch (error) {
    gate.storeFailed(error, undefined, log);
    return headers;
  }
  return fieldsOf(gate, parts, counts, at);
}

/** An admitted request: its fields, the account's month share metric, its give-back. */
function admitted(
  gate: UsageGate,
  parts: readonly Part[],
  counts: Counts,
  at: Instant,
  request: AdmitRequest,
): Admitted {
  const account = parts.find((part) => part.subject.holder === 'account');
  if (account?.kind === 'taken') {
    const state = subjectState(account.subject, account.take.seen, gate.store, at);
    const used = monthShareUsed(account.subject.rules, state, at);
    if (used !== undefined) request.metrics?.count(USAGE_METRICS.accountMonthUsed, {}, used);
  }
  let given = parts.length === 0;
  const headers = fieldsOf(gate, parts, counts, at);
  return {
    admitted: true,
    headers,
    charge: (requests) => charge(gate, parts, counts, requests, request.log ?? gate.log, headers),
    giveBack: async (options) => {
      if (given) return;
      given = true;
      await giveBackParts(gate, parts, request.log, options?.keepToken);
    },
  };
}
