/**
 * The consumer's code: runs queued invocations (`{"action","params"}`) so that each runs its
 * action once, or is kept where an operator sees it. The same code runs an SQS batch (the
 * consumer function) and, locally, a single delivery handed over in process.
 *
 * Per message: parse it; claim its key in the delivery ledger (a copy of a done or parked
 * delivery runs nothing); resolve its webhook and action (one that can never run is parked at
 * once); run it, waiting as long as the function's own time allows; then settle it by its
 * outcome (outcome.ts): done, later (back to the queue after a delay), or parked (the
 * dead-letter queue, with the reason). An outcome that may have happened is never repeated on
 * the consumer's own initiative, unless the action is marked idempotent in the secret.
 *
 * A batch of messages is run by batch.ts.
 */

import type { CallContext } from '../core/call-context.js';
import { NotFoundError, UpstreamError } from '../core/errors.js';
import { type LogFields, type Logger, logWithMetrics } from '../core/log.js';
import { Metrics } from '../core/metrics.js';
import type { ExecutionClient } from '../execution/client.js';
import type { SecretStore } from '../secrets/store.js';
import type { UsageGate } from '../usage/gate.js';
import { ONE_REQUEST } from '../usage/units.js';
import type { BodyStore } from './body-store.js';
import { invocationSchema, type ParsedInvocation } from './invocation.js';
import { type DeliveryLedger, PARKED_MEMORY_MS, rememberUntil } from './ledger.js';
import { outcomeOfAnswer, outcomeOfError, type RunOutcome } from './outcome.js';
import type { QueuedMessage, Settlement } from './settlement.js';

export interface ConsumerDeps {
  readonly execution: ExecutionClient;
  /**
   * The webhooks' secret, to find a delivery's webhook (removed ones are parked), where the
   * consumer may read it: when the webhooks are kept in a secret of their own, only the receiver
   * reads it, and a webhook is stopped at the receiver (its queued deliveries still run).
   */
  readonly webhooks: SecretStore | undefined;
  readonly ledger: DeliveryLedger;
  readonly settlement: Settlement;
  /** Where params too large for a message were put; absent locally. */
  readonly bodies?: BodyStore;
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
  /**
   * Where a delivery that reached its action is counted in the account's usage (never held by
   * a plan: its sender is not a caller); absent, it is not counted.
   */
  readonly usage?: Pick<UsageGate, 'record'>;
}

/** How a message ended, for the log line and the batch response. */
export type MessageResult =
  | { readonly settled: 'done' | 'duplicate' | 'parked'; readonly detail?: string }
  | { readonly settled: 'later'; readonly afterSeconds: number; readonly detail: string };

/**
 * The longest the consumer waits for an action: the platform answers a blocking call within 60
 * s (a longer run is answered 202 with its activation id, and goes on), plus the gateway's own
 * time. A call is only started when this much of the function's time is left, except the
 * first of each group, which has the whole invocation.
 */
export const ACTION_WAIT_MS = 65_000;
/** A running claim lapses this long after the function's own deadline (its consumer died). */
const LEASE_MARGIN_MS = 30_000;
/** Backoff of tries that did not reach the action: 10 s, 20 s, 40 s, ..., at most 15 min. */
const RETRY_BASE_SECONDS = 10;
const RETRY_MAX_SECONDS = 15 * 60;

function backoffSeconds(attempt: number, baseSeconds = RETRY_BASE_SECONDS): number {
  return Math.min(baseSeconds * 2 ** (attempt - 1), RETRY_MAX_SECONDS);
}

const later = (afterSeconds: number, detail: string): MessageResult => ({
  settled: 'later',
  afterSeconds,
  detail,
});

/** Runs one message: claim, run, settle, within the invocation's call context. */
export async function handleMessage(
  message: QueuedMessage,
  deps: ConsumerDeps,
  call: CallContext,
  fields: LogFields = {},
): Promise<MessageResult> {
  const log = call.log.child({ messageId: message.id, ...fields });
  const park = async (reason: string): Promise<MessageResult> => {
    try {
      await deps.settlement.park(message, reason, log);
    } catch (error) {
      log.error('could not park the invocation; it comes again', {
        reason,
        errorName: (error as Error).name,
      });
      return later(deps.retrySeconds ?? RETRY_BASE_SECONDS, `parking failed: ${reason}`);
    }
    call.metrics.count('InvocationsParked', {});
    return { settled: 'parked', detail: reason };
  };

  const invocation = parseInvocation(message.body);
  if (typeof invocation === 'string') {
    const result = await park(`malformed: ${invocation}`);
    log.error('invocation', { outcome: result.settled, reason: result.detail });
    return result;
  }
  const now = deps.now ?? (() => Date.now());
  const source = invocation.source;
  const key = source ? (source.key ?? `${source.webhook}:${source.id}`) : `message:${message.id}`;
  const logFields: LogFields = {
    action: invocation.action,
    webhook: source?.webhook,
    webhookId: source?.id,
  };
  const at = now();
  const keepUntil = rememberUntil((source?.timestamp ?? at / 1000) * 1000, at, deps.memoryMs);
  let claim: Awaited<ReturnType<DeliveryLedger['claim']>>;
  try {
    claim = await deps.ledger.claim({
      key,
      rememberUntilMs: keepUntil,
      leaseUntilMs: at + (call.remainingMs?.() ?? ACTION_WAIT_MS) + LEASE_MARGIN_MS,
      redrive: message.parkedReason !== undefined,
    });
  } catch (error) {
    const reason = `delivery ledger unavailable: ${(error as Error).name}`;
    log.error('invocation', { ...logFields, outcome: 'later', reason });
    return later(deps.retrySeconds ?? RETRY_BASE_SECONDS, reason);
  }
  if (claim.outcome === 'done' || claim.outcome === 'parked') {
    // A parked delivery whose dead-letter message could not be sent yet: send it now.
    if (claim.outcome === 'parked' && claim.messageId === message.id) return park(claim.reason);
    call.metrics.count('WebhookDuplicates', {});
    log.info('invocation', { ...logFields, outcome: 'duplicate', of: claim.outcome });
    return { settled: 'duplicate', detail: claim.outcome };
  }
  if (claim.outcome === 'running') {
    log.warn('invocation', { ...logFields, outcome: 'later', reason: 'running elsewhere' });
    return later(deps.retrySeconds ?? RETRY_BASE_SECONDS, 'the same delivery is running elsewhere');
  }

  const settle = async (outcome: RunOutcome, idempotent: boolean): Promise<MessageResult> => {
    const parkFor = async (reason: string) => {
      await deps.ledger.park(key, claim.token, {
        reason,
        messageId: message.id,
        rememberUntilMs: Math.max(keepUntil, now() + PARKED_MEMORY_MS),
      });
      return park(reason);
    };
    const again = async (afterSeconds: number, reason: string) => {
      if (claim.attempt >= (deps.maxAttempts ?? 5)) {
        return parkFor(`${outcome.kind}: ${reason} (after ${claim.attempt} attempts)`);
      }
      await deps.ledger.release(key, claim.token);
      return later(afterSeconds, reason);
    };
    switch (outcome.kind) {
      case 'succeeded':
      case 'rejected':
        await deps.ledger.complete(key, claim.token, Math.max(keepUntil, now()));
        return { settled: 'done', detail: `${outcome.kind} ${outcome.status}` };
      case 'busy':
        return again(outcome.retryAfterSeconds, `the action answered ${outcome.status}`);
      case 'not-sent':
        return again(backoffSeconds(claim.attempt, deps.retrySeconds), outcome.reason);
      case 'unknown':
      case 'failed':
        return idempotent
          ? again(backoffSeconds(claim.attempt, deps.retrySeconds), outcome.reason)
          : parkFor(`${outcome.kind}: ${outcome.reason}`);
      case 'refused':
        return parkFor(`refused: ${outcome.reason}`);
    }
  };

  let result: MessageResult;
  let outcome: RunOutcome | undefined;
  try {
    const target = await resolve(invocation, deps);
    if (typeof target === 'string') {
      outcome = { kind: 'refused', reason: target };
    } else if (claim.lapsed && !target.idempotent) {
      // The run before this one stopped while it was running: it may have reached the action.
      outcome = { kind: 'unknown', reason: 'an earlier run stopped before its outcome was known' };
    } else {
      outcome = await run(invocation, target, key, deps, call);
    }
    result = await settle(outcome, typeof target !== 'string' && target.idempotent);
  } catch (error) {
    // A ledger write failed after the run: the claim lapses with its lease, and the next
    // receive parks the delivery as unknown (it never runs it again on its own).
    const reason = `delivery ledger write failed: ${(error as Error).name}`;
    log.error('invocation', { ...logFields, outcome: 'later', reason });
    return later(deps.retrySeconds ?? RETRY_BASE_SECONDS, reason);
  }
  const line = {
    ...logFields,
    attempt: claim.attempt,
    outcome: outcome.kind,
    status: 'status' in outcome ? outcome.status : undefined,
    reason: 'reason' in outcome ? outcome.reason : undefined,
    settled: result.settled,
  };
  if (outcome.kind === 'succeeded') log.info('invocation', line);
  else log.error('invocation', line);
  return result;
}

/** The action of an invocation, or why it can never run. */
async function resolve(invocation: ParsedInvocation, deps: ConsumerDeps) {
  const source = invocation.source;
  if (source && deps.webhooks) {
    const webhooks = (await deps.webhooks.get()).webhooks;
    if (!webhooks || !Object.hasOwn(webhooks, source.webhook)) {
      return `the webhook "${source.webhook}" is not in the secret`;
    }
  }
  try {
    return await deps.execution.target('action', invocation.action, 'POST');
  } catch (error) {
    if (error instanceof NotFoundError) return `no action named "${invocation.action}"`;
    throw error;
  }
}

/** One blocking POST of the params to the action, result only, waiting as long as allowed. */
async function run(
  invocation: ParsedInvocation,
  target: Awaited<ReturnType<ExecutionClient['target']>>,
  key: string,
  deps: ConsumerDeps,
  call: CallContext,
): Promise<RunOutcome> {
  try {
    const params = invocation.paramsRef
      ? await deps.bodies?.get(invocation.paramsRef)
      : JSON.stringify(invocation.params);
    if (params === undefined) return { kind: 'refused', reason: 'no body store for its params' };
    const answer = await deps.execution.execute(
      target,
      { method: 'POST', result: true, body: params, deliveryId: key, timeoutMs: ACTION_WAIT_MS },
      call,
    );
    await deps.usage?.record(ONE_REQUEST, call.log);
    return outcomeOfAnswer(answer);
  } catch (error) {
    // The platform answered (an error of its gateway): the delivery counts in its usage.
    if (error instanceof UpstreamError) await deps.usage?.record(ONE_REQUEST, call.log);
    return outcomeOfError(error);
  }
}

/** The invocation, or what is wrong with the message. */
function parseInvocation(body: string): ParsedInvocation | string {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return 'not JSON';
  }
  const parsed = invocationSchema.safeParse(json);
  if (parsed.success) return parsed.data;
  return parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
}

/**
 * One message handed over in process (local runs), as SQS would carry it: a run of its own, with
 * its own call context, whose metrics ride on a closing line of its own.
 */
export async function processMessage(body: string, deps: ConsumerDeps): Promise<MessageResult> {
  const id = `local-${deps.now?.() ?? Date.now()}-${Math.random()}`;
  const call = { metrics: new Metrics(), log: deps.log.child({ messageId: id }) };
  const result = await handleMessage({ id, body }, deps, call);
  const metrics = call.metrics.take('consumeInvocations');
  if (metrics.length > 0) logWithMetrics(call.log, 'info', 'metrics', {}, metrics);
  return result;
}
