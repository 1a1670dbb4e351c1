/**
 * The consumer's code: runs queued invocations (`{"action","params"}`) so that each runs its
 * action once, or is kept where an operator sees it. The same code runs an SQS batch (the
 * consumer function) and, locally, a single delivery handed over in process.
 *
 * Per message, three steps: **claim** its delivery's key in the delivery ledger (ledger.ts);
 * **run** its action when the claim is ours, waiting as long as the function's own time allows
 * (what the run came to: outcome.ts); **settle** it: done, later (back to the queue after a
 * delay), or parked (the dead-letter queue, with the reason). What to do at each step is
 * decided by decision.ts, from the record and the outcome alone.
 *
 * A batch of messages is run by batch.ts.
 */
import type { CallContext } from '../core/call-context.ts';
import { type LogFields, type Logger, logWithMetrics } from '../core/log.ts';
import { Metrics } from '../core/metrics.ts';
import { ACTION_WAIT_MS, type ActionDeps, callAction, resolveAction } from './action.ts';
import {
  decide,
  type MessageResult,
  type RecordStatus,
  type Rules,
  type Settling,
} from './decision.ts';
import { type ParsedInvocation, readInvocation } from './invocation.ts';
import { type DeliveryLedger, PARKED_MEMORY_MS, rememberUntil } from './ledger.ts';
import type { RunOutcome } from './outcome.ts';
import type { QueuedMessage, Settlement } from './settlement.ts';

/** The consumer's function (sls/functions.ts): its log lines and its metrics' Function dimension. */
export const CONSUMER_FUNCTION = 'consumeInvocations';

export interface ConsumerDeps extends ActionDeps {
  readonly ledger: DeliveryLedger;
  readonly settlement: Settlement;
  /** The container's logger; each message logs on its call context's, with its request id. */
  readonly log: Logger;
  readonly now?: () => number;
  /** How long a delivery's key is remembered (DELIVERY_MEMORY_DAYS). */
  readonly memoryMs?: number;
  /** Tries of an invocation that did not reach its action, before it is parked. */
  readonly maxAttempts?: number;
  /** The wait before the second try (INVOCATION_RETRY_SECONDS), doubling for each later one. */
  readonly retrySeconds?: number;
  /** Receives before SQS itself moves a message to the dead-letter queue (its backstop). */
  readonly maxReceives?: number;
}

/** A running claim lapses this long after the function's own deadline (its consumer died). */
const LEASE_MARGIN_MS = 30_000;
/** The wait before a second try, doubling for each later one (INVOCATION_RETRY_SECONDS). */
const RETRY_BASE_SECONDS = 10;

const later = (afterSeconds: number, detail: string): MessageResult => ({
  settled: 'later',
  afterSeconds,
  detail,
});

/** One message on its way: what it asks, the key of its delivery, and its log. */
interface Delivery {
  readonly message: QueuedMessage;
  /** The invocation, or what is wrong with the message. */
  readonly invocation: ParsedInvocation | string;
  readonly key: string;
  /** Epoch ms when the consumer took it up. */
  readonly at: number;
  /** Epoch ms until which the ledger remembers its delivery. */
  readonly keepUntil: number;
  readonly log: Logger;
  /** What its log lines say of it: the action, the webhook and the delivery's id. */
  readonly fields: LogFields;
}

/** Runs one message: claim, run, settle, within the invocation's call context. */
export async function handleMessage(
  message: QueuedMessage,
  deps: ConsumerDeps,
  call: CallContext,
  fields: LogFields = {},
): Promise<MessageResult> {
  const delivery = deliveryOf(message, deps, call, fields);
  const record = await claim(delivery, deps, call);
  let outcome: RunOutcome | undefined;
  let result: MessageResult;
  try {
    let verdict: Settling;
    if (record.status === 'claimed') {
      const ran = await run(delivery, record, deps, call);
      outcome = ran.outcome;
      verdict = decide(record, outcome, rulesOf(deps, ran.idempotent));
    } else {
      verdict = decide(record, undefined, rulesOf(deps));
    }
    result = await settle(delivery, record, verdict, deps, call);
  } catch (error) {
    // A ledger write failed after the run: the claim lapses with its lease, and the next
    // receive parks the delivery as unknown (it never runs it again on its own).
    const reason = `delivery ledger write failed: ${(error as Error).name}`;
    delivery.log.error('invocation', { ...delivery.fields, outcome: 'later', reason });
    return later(rulesOf(deps).retrySeconds, reason);
  }
  logResult(delivery, record, outcome, result);
  return result;
}

function rulesOf(deps: ConsumerDeps, idempotent = false): Rules {
  return {
    idempotent,
    maxAttempts: deps.maxAttempts ?? 5,
    retrySeconds: deps.retrySeconds ?? RETRY_BASE_SECONDS,
  };
}

/** The message read: its invocation, its delivery's key, how long the key is remembered. */
function deliveryOf(
  message: QueuedMessage,
  deps: ConsumerDeps,
  call: CallContext,
  fields: LogFields,
): Delivery {
  const log = call.log.child({ messageId: message.id, ...fields });
  const invocation = readInvocation(message.body);
  const source = typeof invocation === 'string' ? undefined : invocation.source;
  const at = (deps.now ?? Date.now)();
  return {
    message,
    invocation,
    at,
    key: source ? (source.key ?? `${source.webhook}:${source.id}`) : `message:${message.id}`,
    keepUntil: rememberUntil((source?.timestamp ?? at / 1000) * 1000, at, deps.memoryMs),
    log,
    fields:
      typeof invocation === 'string'
        ? {}
        : { action: invocation.action, webhook: source?.webhook, webhookId: source?.id },
  };
}

/** Claims the delivery's key: what the ledger says of it (never throws). */
async function claim(
  delivery: Delivery,
  deps: ConsumerDeps,
  call: CallContext,
): Promise<RecordStatus> {
  if (typeof delivery.invocation === 'string') {
    return { status: 'unreadable', reason: `malformed: ${delivery.invocation}` };
  }
  const { at } = delivery;
  try {
    const claimed = await deps.ledger.claim({
      key: delivery.key,
      rememberUntilMs: delivery.keepUntil,
      leaseUntilMs: at + (call.remainingMs?.() ?? ACTION_WAIT_MS) + LEASE_MARGIN_MS,
      redrive: delivery.message.parkedReason !== undefined,
    });
    if (claimed.outcome === 'claimed') {
      const { token, attempt, lapsed } = claimed;
      return { status: 'claimed', token, attempt, lapsed };
    }
    if (claimed.outcome !== 'parked') return { status: claimed.outcome };
    const byThisMessage = claimed.messageId === delivery.message.id;
    return { status: 'parked', reason: claimed.reason, byThisMessage };
  } catch (error) {
    return {
      status: 'unavailable',
      reason: `delivery ledger unavailable: ${(error as Error).name}`,
    };
  }
}

/** Runs a claimed message's action, unless the verdict takes its outcome as known. */
async function run(
  delivery: Delivery,
  record: Extract<RecordStatus, { status: 'claimed' }>,
  deps: ConsumerDeps,
  call: CallContext,
): Promise<{ outcome: RunOutcome; idempotent: boolean }> {
  // Claimed, so it read: a malformed message claims nothing.
  const invocation = delivery.invocation as ParsedInvocation;
  let target: Awaited<ReturnType<typeof resolveAction>>;
  try {
    target = await resolveAction(invocation, deps);
  } catch (error) {
    // The secret could not be read to find the action: nothing was sent, so the claim is
    // released and the delivery tried again (parked only after its last attempt).
    const reason = `its action could not be resolved: ${(error as Error).name}`;
    return { outcome: { kind: 'not-sent', reason }, idempotent: false };
  }
  if (typeof target === 'string') {
    return { outcome: { kind: 'refused', reason: target }, idempotent: false };
  }
  const { idempotent } = target;
  const gate = decide(record, undefined, rulesOf(deps, idempotent));
  const outcome = gate.run
    ? await callAction(invocation, target, delivery.key, deps, call)
    : gate.outcome;
  return { outcome, idempotent };
}

/** Settles a message as the verdict says: its ledger record first, then the queue's part. */
async function settle(
  delivery: Delivery,
  record: RecordStatus,
  { result, becomes }: Settling,
  deps: ConsumerDeps,
  call: CallContext,
): Promise<MessageResult> {
  const { key, keepUntil } = delivery;
  const token = record.status === 'claimed' ? record.token : '';
  const now = (deps.now ?? Date.now)();
  if (becomes === 'done') await deps.ledger.complete(key, token, Math.max(keepUntil, now));
  if (becomes === 'pending') await deps.ledger.release(key, token);
  if (becomes === 'parked') {
    await deps.ledger.park(key, token, {
      reason: result.detail ?? '',
      messageId: delivery.message.id,
      rememberUntilMs: Math.max(keepUntil, now + PARKED_MEMORY_MS),
    });
  }
  if (result.settled === 'duplicate') call.metrics.count('WebhookDuplicates', {});
  if (result.settled === 'parked') return deadLetter(delivery, result.detail ?? '', deps, call);
  return result;
}

/**
 * A parked delivery's message to the dead-letter queue, with the reason, counted as parked; if
 * it cannot go, it comes again and is parked then.
 */
async function deadLetter(
  delivery: Delivery,
  reason: string,
  deps: ConsumerDeps,
  call: CallContext,
): Promise<MessageResult> {
  try {
    await deps.settlement.deadLetter(delivery.message, reason, delivery.log);
  } catch (error) {
    delivery.log.error('could not park the invocation; it comes again', {
      reason,
      errorName: (error as Error).name,
    });
    return later(rulesOf(deps).retrySeconds, `parking failed: ${reason}`);
  }
  call.metrics.count('InvocationsParked', {});
  return { settled: 'parked', detail: reason };
}

/** The message's line: its outcome when it was claimed, else what its record said. */
function logResult(
  { log, fields }: Delivery,
  record: RecordStatus,
  outcome: RunOutcome | undefined,
  result: MessageResult,
): void {
  if (outcome) {
    const line = {
      ...fields,
      attempt: record.status === 'claimed' ? record.attempt : undefined,
      outcome: outcome.kind,
      status: 'status' in outcome ? outcome.status : undefined,
      reason: 'reason' in outcome ? outcome.reason : undefined,
      settled: result.settled,
    };
    if (outcome.kind === 'succeeded') log.info('invocation', line);
    else log.error('invocation', line);
    return;
  }
  if (record.status === 'running') {
    log.warn('invocation', { ...fields, outcome: 'later', reason: 'running elsewhere' });
  } else if (result.settled === 'duplicate') {
    log.info('invocation', { ...fields, outcome: 'duplicate', of: result.detail });
  } else if (record.status !== 'parked') {
    log.error('invocation', { ...fields, outcome: result.settled, reason: result.detail });
  }
}

/**
 * One message handed over in process (local runs), as SQS would carry it: a run of its own, with
 * its own call context, whose metrics ride on a closing line of its own.
 */
export async function processMessage(body: string, deps: ConsumerDeps): Promise<MessageResult> {
  const id = `local-${deps.now?.() ?? Date.now()}-${Math.random()}`;
  const call = { metrics: new Metrics(), log: deps.log.child({ messageId: id }) };
  const result = await handleMessage({ id, body }, deps, call);
  const metrics = call.metrics.take(CONSUMER_FUNCTION);
  if (metrics.length > 0) logWithMetrics(call.log, 'info', 'metrics', {}, metrics);
  return result;
}
