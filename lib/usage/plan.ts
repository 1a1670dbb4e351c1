/**
 * Plans as the admission reads them: the secret's `plan` of a caller and its `accountPlan`,
 * turned once per fetched secret into rules (the token bucket in whole microseconds, the quotas
 * per counter). What a request spends is counted in three counters: requests, and characters
 * of text sent to `translate` (both engines) and to `tts`, the platform's billing units.
 */
import type { PlanEntry } from '../secrets/callers-schema.ts';
import type { PlatformSecret } from '../secrets/schema.ts';

/** A request's or a window's amounts, per counter. */
export interface Counts {
  readonly requests: number;
  readonly translate: number;
  readonly tts: number;
}

export type Counter = keyof Counts;
export const COUNTERS: readonly Counter[] = ['requests', 'translate', 'tts'];
export const NO_COUNTS: Counts = { requests: 0, translate: 0, tts: 0 };

/** A limit of a plan, named as the secret names it. */
export type LimitName =
  | 'rateRps'
  | 'dayQuotaRequest'
  | 'monthQuotaRequest'
  | 'dayQuotaCharacters.translate'
  | 'dayQuotaCharacters.tts'
  | 'monthQuotaCharacters.translate'
  | 'monthQuotaCharacters.tts';

export type WindowName = 'day' | 'month';

/** The secret's name of the quota of one counter in one window. */
export function quotaName(window: WindowName, counter: Counter): LimitName {
  return counter === 'requests'
    ? `${window}QuotaRequest`
    : (`${window}QuotaCharacters.${counter}` as LimitName);
}

/**
 * A token bucket as GCRA (the generic cell rate algorithm) keeps it: one theoretical arrival
 * time, in whole microseconds so that every container and DynamoDB compute it alike. A
 * request is admitted when the bucket's time is at most `toleranceUs` ahead of now, and moves
 * it `intervalUs` on.
 */
export interface RateRule {
  readonly rps: number;
  readonly burst: number;
  /** One request's worth of time: 1 s / rps. */
  readonly intervalUs: number;
  /** How far ahead of now the bucket may run: (burst - 1) intervals. */
  readonly toleranceUs: number;
}

/** A plan as rules: its bucket, and its quotas per window and counter. */
export interface Rules {
  readonly rate: RateRule | undefined;
  readonly day: Partial<Counts>;
  readonly month: Partial<Counts>;
}

const rulesByPlan = new WeakMap<PlanEntry, Rules>();

/** A plan's rules, computed once per plan object (once per fetched secret). */
export function rulesOf(plan: PlanEntry): Rules {
  let rules = rulesByPlan.get(plan);
  if (!rules) {
    const rps = plan.rateRps;
    const burst = plan.burst ?? rps;
    const intervalUs = rps === undefined ? 0 : Math.max(1, Math.round(1_000_000 / rps));
    rules = {
      rate:
        rps === undefined || burst === undefined
          ? undefined
          : { rps, burst, intervalUs, toleranceUs: (burst - 1) * intervalUs },
      day: quotasOf(plan.dayQuotaRequest, plan.dayQuotaCharacters),
      month: quotasOf(plan.monthQuotaRequest, plan.monthQuotaCharacters),
    };
    rulesByPlan.set(plan, rules);
  }
  return rules;
}

function quotasOf(
  requests: number | undefined,
  characters: PlanEntry['dayQuotaCharacters'],
): Partial<Counts> {
  const quotas: { -readonly [C in Counter]?: number } = {};
  if (requests !== undefined) quotas.requests = requests;
  if (characters?.translate !== undefined) quotas.translate = characters.translate;
  if (characters?.tts !== undefined) quotas.tts = characters.tts;
  return quotas;
}

/** The plans a request of one caller is held to. */
export interface Plans {
  /** The caller's own plan; undefined: none. */
  readonly plan: PlanEntry | undefined;
  /** The account's plan, which holds every caller together; undefined: none. */
  readonly accountPlan: PlanEntry | undefined;
}

/** No plan for the caller, none for the account: nothing counts such a caller's requests. */
export const NO_PLANS: Plans = { plan: undefined, accountPlan: undefined };

const plansBySecret = new WeakMap<PlatformSecret, Map<string, PlanEntry>>();

/**
 * The plans of a caller in a fetched secret (the callers' capability): a map of the callers'
 * plans is built once per secret, so that a request pays a lookup.
 */
export function plansOf(secret: PlatformSecret, callerId: string): Plans {
  let byCaller = plansBySecret.get(secret);
  if (!byCaller) {
    byCaller = new Map();
    for (const caller of secret.callers ?? []) {
      if (caller.plan) byCaller.set(caller.id, caller.plan);
    }
    plansBySecret.set(secret, byCaller);
  }
  return { plan: byCaller.get(callerId), accountPlan: secret.accountPlan };
}
