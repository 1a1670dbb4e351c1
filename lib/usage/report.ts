/**
 * A caller's plan and usage, and the account's, as GET /usage answers them: read from the usage
 * gate's store, never written. Apart from the gate so that only the usage function carries it.
 */
import type { PlanEntry } from '../secrets/callers-schema.ts';
import type { UsageGate } from './gate.ts';
import { countsIn, type UsageState } from './limits.ts';
import { type Counts, NO_COUNTS, type Plans, type Rules, rulesOf } from './plan.ts';
import { keysOf } from './shards.ts';
import { ACCOUNT_KEY, callerKey } from './taking.ts';
import { type Windows, windowsOf } from './windows.ts';

/** A subject's usage in one window, as GET /usage answers it. */
interface WindowUsage {
  /** The window: `2026-11-25`, `2026-11`. */
  readonly window: string;
  readonly requests: number;
  readonly characters: { readonly translate: number; readonly tts: number };
  /** What the plan's quotas of this window leave; only the quotas the plan has. */
  readonly remaining: {
    readonly requests?: number;
    readonly characters?: { readonly translate?: number; readonly tts?: number };
  };
  /** When the window's counters start afresh (ISO 8601, UTC). */
  readonly resetsAt: string;
}

interface SubjectUsage {
  readonly plan: PlanEntry | null;
  /** False for a caller without a plan: its requests are not counted on their own. */
  readonly counted: boolean;
  readonly day: WindowUsage;
  readonly month: WindowUsage;
}

export interface UsageReport {
  readonly caller: SubjectUsage;
  /** The account's plan and usage, when the secret has an accountPlan. */
  readonly account: SubjectUsage | undefined;
}

/**
 * The plans' usage as the gate's store holds it now, read from every record they may be kept
 * in (a subject's own item and its shards, shards.ts, at once); the caller's only when it has
 * a plan.
 */
export async function usageReport(
  gate: UsageGate,
  callerId: string,
  plans: Plans,
): Promise<UsageReport> {
  const windows = windowsOf(gate.now());
  const callerKeys = plans.plan ? keysOf(callerKey(callerId)) : [];
  const accountKeys = plans.accountPlan ? keysOf(ACCOUNT_KEY) : [];
  const keys = [...callerKeys, ...accountKeys];
  const states = await Promise.all(keys.map((key) => gate.store.read(key)));
  const found = new Map(keys.map((key, index) => [key, states[index]]));
  const total = (keys: readonly string[]) =>
    sumOf(
      keys.map((key) => found.get(key)),
      windows,
    );
  return {
    caller: subjectUsage(plans.plan, total(callerKeys), windows),
    account: plans.accountPlan
      ? subjectUsage(plans.accountPlan, total(accountKeys), windows)
      : undefined,
  };
}

const plus = (a: Counts, b: Counts): Counts => ({
  requests: a.requests + b.requests,
  translate: a.translate + b.translate,
  tts: a.tts + b.tts,
});

/** The records of one subject as one state of its current windows; undefined when none. */
function sumOf(states: readonly (UsageState | undefined)[], windows: Windows) {
  const present = states.filter((state): state is UsageState => state !== undefined);
  if (present.length === 0) return undefined;
  return {
    tat: 0,
    day: windows.day,
    dayCounts: present.reduce(
      (sum, state) => plus(sum, countsIn(state, 'day', windows)),
      NO_COUNTS,
    ),
    month: windows.month,
    monthCounts: present.reduce(
      (sum, state) => plus(sum, countsIn(state, 'month', windows)),
      NO_COUNTS,
    ),
  };
}

function windowUsage(
  rules: Rules | undefined,
  state: UsageState | undefined,
  window: 'day' | 'month',
  windows: Windows,
): WindowUsage {
  const key = windows[window];
  const counts = state && state[window] === key ? state[`${window}Counts`] : undefined;
  const used = {
    requests: counts?.requests ?? 0,
    translate: counts?.translate ?? 0,
    tts: counts?.tts ?? 0,
  };
  const quotas = rules?.[window] ?? {};
  const left = (counter: 'requests' | 'translate' | 'tts') => {
    const quota = quotas[counter];
    return quota === undefined ? undefined : Math.max(0, quota - used[counter]);
  };
  const characters =
    quotas.translate !== undefined || quotas.tts !== undefined
      ? { translate: left('translate'), tts: left('tts') }
      : undefined;
  return {
    window: key,
    requests: used.requests,
    characters: { translate: used.translate, tts: used.tts },
    remaining: {
      ...(quotas.requests !== undefined ? { requests: left('requests') } : {}),
      ...(characters ? { characters } : {}),
    },
    resetsAt: new Date(window === 'day' ? windows.dayEndsAt : windows.monthEndsAt).toISOString(),
  };
}

function subjectUsage(
  plan: PlanEntry | undefined,
  state: UsageState | undefined,
  windows: Windows,
): SubjectUsage {
  const rules = plan ? rulesOf(plan) : undefined;
  return {
    plan: plan ?? null,
    counted: plan !== undefined,
    day: windowUsage(rules, state, 'day', windows),
    month: windowUsage(rules, state, 'month', windows),
  };
}
