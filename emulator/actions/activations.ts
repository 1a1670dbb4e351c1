import { randomUUID } from 'node:crypto';
import { copyJson } from './json-values.ts';
import type {
  ActionActivations,
  ActionDefinition,
  ActivationLogEntry,
  ActivationRecord,
  ActivationStatus,
  JsonObject,
} from './types.ts';

/** The demo namespace and subject that activation records name. */
const ACTIVATION_SUBJECT = 'demo@example.com';
const ACTIVATION_NAMESPACE = 'demo@example.com_demo';
const ACTION_VERSION = '0.0.1';
const ACTION_KIND = 'nodejs:20';
/** OpenWhisk's default limits, as the record's `limits` annotation shows them. */
const ACTION_LIMITS = { concurrency: 1, logs: 10, memory: 256, timeout: 60_000 } as const;

/** A long-running emulator (npm start, benchmarks) must not grow without bound. */
export const MAX_LOGGED_ACTIVATIONS = 2000;

/** OpenWhisk activation ids: 32 lower-case hex digits. */
export function newActivationId(): string {
  return randomUUID().replaceAll('-', '');
}

/** Every activation the emulator started, oldest first. */
export class ActivationLog implements ActionActivations {
  readonly #entries: ActivationLogEntry[] = [];

  add(entry: ActivationLogEntry): void {
    this.#entries.push(entry);
    if (this.#entries.length > MAX_LOGGED_ACTIVATIONS) {
      this.#entries.splice(0, this.#entries.length - MAX_LOGGED_ACTIVATIONS);
    }
  }

  /** Copies, so a test cannot change what the emulator remembers. */
  activations(): ActivationLogEntry[] {
    return copyJson(this.#entries);
  }

  reset(): void {
    this.#entries.length = 0;
  }
}

/** An activation under way: its id is known at once, its record when the code has finished. */
export interface RunningActivation {
  readonly activationId: string;
  readonly record: Promise<ActivationRecord>;
}

export interface ActivationContext {
  readonly log: ActivationLog;
  readonly now: () => number;
}

/** The caller of an activation, for the log. */
export interface ActivationCause {
  readonly method: string;
  /** The trigger activation that made a rule run the action. */
  readonly cause?: string;
}

/**
 * Code that throws instead of returning is the action developer's fault (OpenWhisk's
 * action_developer_error); only the message is kept, never a stack.
 */
async function runCode(
  action: ActionDefinition,
  params: JsonObject,
): Promise<{ status: ActivationStatus; result: JsonObject }> {
  try {
    const outcome = await action.code(params);
    return { status: outcome.kind, result: outcome.result };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return {
      status: 'action_developer_error',
      result: { error: `An error has occurred: ${message}` },
    };
  }
}

function annotationsOf(name: string, waitTime: number) {
  return [
    { key: 'path', value: `${ACTIVATION_NAMESPACE}/${name}` },
    { key: 'waitTime', value: waitTime },
    { key: 'kind', value: ACTION_KIND },
    { key: 'timeout', value: false },
    { key: 'limits', value: { ...ACTION_LIMITS } },
  ];
}

function recordOf(
  action: ActionDefinition,
  activationId: string,
  start: number,
  end: number,
  run: { status: ActivationStatus; result: JsonObject },
): ActivationRecord {
  return {
    duration: Math.max(0, end - start),
    name: action.name,
    subject: ACTIVATION_SUBJECT,
    activationId,
    publish: false,
    annotations: annotationsOf(action.name, 0),
    version: ACTION_VERSION,
    response: { result: run.result, success: run.status === 'success', status: run.status },
    end,
    logs: [],
    start,
    namespace: ACTIVATION_NAMESPACE,
  };
}

/** Logs the activation and starts the action's code; the caller decides how long to wait. */
export function startActivation(
  context: ActivationContext,
  action: ActionDefinition,
  params: JsonObject,
  caller: ActivationCause,
): RunningActivation {
  const activationId = newActivationId();
  const start = context.now();
  context.log.add({
    activationId,
    kind: 'action',
    name: action.name,
    params: copyJson(params),
    method: caller.method,
    at: start,
    ...(caller.cause === undefined ? {} : { cause: caller.cause }),
  });
  const record = runCode(action, params).then((run) =>
    recordOf(action, activationId, start, context.now(), run),
  );
  return { activationId, record };
}

/**
 * The record if the activation ends within `waitMs`, else undefined (OpenWhisk then answers
 * 202 with the activation id, and the activation goes on).
 */
export async function waitForRecord(
  running: RunningActivation,
  waitMs: number,
): Promise<ActivationRecord | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<undefined>((resolve) => {
    timer = setTimeout(resolve, waitMs, undefined);
  });
  try {
    return await Promise.race([running.record, expired]);
  } finally {
    clearTimeout(timer);
  }
}
