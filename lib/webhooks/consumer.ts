/**
 * Queued invocations: `{"action":"<name>","params":{...}}` messages, run
 * one by one against the action's execution URL. The same code runs an SQS batch (the
 * consumer function) and, locally, a single delivery handed over in process.
 *
 * Each message ends in one of three outcomes:
 * - succeeded: the action answered below 400;
 * - rejected: the action itself answered 4xx. It ran and refused these parameters; running it
 *   again cannot change that, so the message is not returned to the queue (it would only block
 *   its FIFO group for five receives before reaching the dead-letter queue). It is logged as an
 *   error, with the action's status, for an alarm to pick up;
 * - failed: unknown action, the action failed (5xx, OpenWhisk's 502 application error), the
 *   gateway refused or failed (its envelope: quota, authentication, endpoint error or timeout),
 *   the action could not be reached, or the message is malformed. The message goes back to the
 *   queue and, after maxReceiveCount receives, to the dead-letter queue, where it is kept.
 * - duplicate: a webhook delivery whose key the ledger knows as done (ledger.ts): the
 *   action is not run again, and the message is not returned.
 *
 * A webhook delivery is claimed in the ledger before its action runs; the claim is completed
 * when the run succeeded or was rejected, and released when it failed, so a retry may run it.
 */
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import * as z from 'zod/mini';
import { toServiceError } from '../core/errors.js';
import type { LogFields, Logger } from '../core/log.js';
import { countMetric } from '../core/metrics.js';
import { nameSchema as name } from '../core/schemas.js';
import type { TimeBudget } from '../core/time-budget.js';
import type { ExecutionClient } from '../execution/client.js';
import { type DeliveryLedger, REMEMBER_MARGIN_MS, rememberUntil } from './ledger.js';

export const invocationSchema = z.object({
  action: name,
  params: z._default(z.record(z.string(), z.unknown()), {}),
  /**
   * The webhook delivery it came from: the ledger's key (the receiver's deliveryKey) and the
   * delivery's timestamp in epoch seconds, which sets how long the key is remembered.
   */
  source: z.optional(
    z.object({
      webhook: z.string(),
      id: z.string(),
      key: z.optional(z.string()),
      timestamp: z.optional(z.number()),
    }),
  ),
});
export type Invocation = z.input<typeof invocationSchema>;
type ParsedInvocation = z.output<typeof invocationSchema>;

export type InvocationOutcome =
  | { readonly outcome: 'succeeded'; readonly status: number }
  | { readonly outcome: 'rejected'; readonly status: number }
  | { readonly outcome: 'duplicate' }
  | { readonly outcome: 'failed'; readonly reason: string; readonly status?: number };

export interface ConsumerDeps {
  readonly execution: ExecutionClient;
  readonly ledger: DeliveryLedger;
  readonly log: Logger;
  readonly now?: () => number;
  /** Receives before SQS moves a failing message to the dead-letter queue (its redrive policy). */
  readonly maxReceives?: number;
}

/** A running claim lapses this long after the function's own deadline (its consumer died). */
const LEASE_MARGIN_MS = 30_000;

/** Parses a message body; undefined (logged) when it is not an invocation. */
function parseInvocation(body: string, log: Logger): ParsedInvocation | undefined {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    log.error('invocation is not JSON');
    return undefined;
  }
  const parsed = invocationSchema.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    log.error('invocation is malformed', { issues: issues.join('; ') });
    return undefined;
  }
  return parsed.data;
}

/** Runs one invocation: a blocking POST of its params to the action, result only. */
async function runInvocation(
  invocation: ParsedInvocation,
  deps: ConsumerDeps,
  budget: TimeBudget = {},
): Promise<InvocationOutcome> {
  try {
    const target = await deps.execution.target('action', invocation.action, 'POST');
    const answer = await deps.execution.execute(
      target,
      { method: 'POST', result: true, body: JSON.stringify(invocation.params) },
      budget,
    );
    if (answer.status < 400) return { outcome: 'succeeded', status: answer.status };
    if (answer.status < 500) return { outcome: 'rejected', status: answer.status };
    return { outcome: 'failed', reason: 'action failed', status: answer.status };
  } catch (thrown) {
    const error = toServiceError(thrown);
    return { outcome: 'failed', reason: `${error.code} ${error.message}`, status: error.status };
  }
}

/** One message from the queue (or handed over in process): parse, run, log the outcome. */
export async function processMessage(
  body: string,
  deps: ConsumerDeps,
  budget: TimeBudget = {},
  fields: LogFields = {},
): Promise<InvocationOutcome> {
  const log = deps.log.child(fields);
  const invocation = parseInvocation(body, log);
  if (!invocation) return { outcome: 'failed', reason: 'malformed invocation' };
  const outcome = await runOnce(invocation, deps, budget);
  const logFields: LogFields = {
    action: invocation.action,
    webhook: invocation.source?.webhook,
    webhookId: invocation.source?.id,
    outcome: outcome.outcome,
    status: 'status' in outcome ? outcome.status : undefined,
    reason: outcome.outcome === 'failed' ? outcome.reason : undefined,
  };
  if (outcome.outcome === 'succeeded' || outcome.outcome === 'duplicate') {
    log.info('invocation', logFields);
  } else log.error('invocation', logFields);
  return outcome;
}

/** Runs the invocation, under a ledger claim when it is a webhook delivery. */
async function runOnce(
  invocation: ParsedInvocation,
  deps: ConsumerDeps,
  budget: TimeBudget,
): Promise<InvocationOutcome> {
  const source = invocation.source;
  if (!source) return runInvocation(invocation, deps, budget);
  // Messages queued before the key travelled with them: the receiver's key for ordinary ids.
  const key = source.key ?? `${source.webhook}:${source.id}`;
  const now = deps.now ?? (() => Date.now());
  const at = now();
  const keepUntil = rememberUntil((source.timestamp ?? at / 1000) * 1000, at);
  let claim: Awaited<ReturnType<DeliveryLedger['claim']>>;
  try {
    claim = await deps.ledger.claim({
      key,
      rememberUntilMs: keepUntil,
      leaseUntilMs: at + (budget.remainingMs?.() ?? 60_000) + LEASE_MARGIN_MS,
    });
  } catch (thrown) {
    return { outcome: 'failed', reason: `delivery ledger unavailable: ${errorText(thrown)}` };
  }
  if (claim.outcome === 'done') {
    countMetric('WebhookDuplicates', {});
    return { outcome: 'duplicate' };
  }
  if (claim.outcome === 'running') {
    // Back to the queue: by the next receive the other run has completed or released it.
    return { outcome: 'failed', reason: 'the same delivery is running elsewhere' };
  }
  const outcome = await runInvocation(invocation, deps, budget);
  try {
    if (outcome.outcome === 'failed') await deps.ledger.release(key, claim.token);
    else
      await deps.ledger.complete(key, claim.token, Math.max(keepUntil, now() + REMEMBER_MARGIN_MS));
  } catch (thrown) {
    // The run's outcome stands. A claim left running lapses with its lease; a failed release
    // only delays the retry until then.
    deps.log.warn('delivery ledger write failed', { reason: errorText(thrown) });
  }
  return outcome;
}

function errorText(thrown: unknown): string {
  return thrown instanceof Error ? `${thrown.name}: ${thrown.message}` : 'unknown error';
}

/**
 * Runs an SQS batch and reports the messages to return to the queue (ReportBatchItemFailures:
 * only those come back). Messages of one FIFO group run in order, and once one fails the
 * rest of its group is returned unrun, so that the group's order survives the retry; groups
 * (and, on a standard queue, single messages) run side by side.
 */
export async function consumeBatch(
  event: SQSEvent,
  deps: ConsumerDeps,
  budget: TimeBudget = {},
): Promise<SQSBatchResponse> {
  const failed = new Set<string>();
  await Promise.all(
    groupsOf(event.Records).map(async (records) => {
      let groupFailed = false;
      for (const record of records) {
        if (!groupFailed) {
          const fields = { messageId: record.messageId, receiveCount: receiveCountOf(record) };
          const result = await processMessage(record.body, deps, budget, fields);
          groupFailed = result.outcome === 'failed';
          if (groupFailed && (fields.receiveCount ?? 0) >= (deps.maxReceives ?? Infinity)) {
            // Its last receive: SQS now moves it to the dead-letter queue.
            countMetric('InvocationsToDeadLetterQueue', {});
          }
        }
        if (groupFailed) failed.add(record.messageId);
      }
    }),
  );
  return {
    batchItemFailures: event.Records.filter((r) => failed.has(r.messageId)).map((r) => ({
      itemIdentifier: r.messageId,
    })),
  };
}

function groupsOf(records: readonly SQSRecord[]): SQSRecord[][] {
  const groups = new Map<string, SQSRecord[]>();
  for (const record of records) {
    const key = record.attributes.MessageGroupId ?? `message:${record.messageId}`;
    const group = groups.get(key);
    if (group) group.push(record);
    else groups.set(key, [record]);
  }
  return [...groups.values()];
}

function receiveCountOf(record: SQSRecord): number | undefined {
  const count = Number(record.attributes.ApproximateReceiveCount);
  return Number.isFinite(count) ? count : undefined;
}
