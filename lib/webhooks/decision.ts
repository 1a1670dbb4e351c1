/**
 * What the consumer does with a queued message, decided in one place. It is a pure function of the
 * delivery ledger's record and of the run's outcome (outcome.ts). Powertools for AWS Lambda's
 * idempotency handler decides the same way, from its record's status. The consumer (consumer.ts)
 * claims, runs when told to, and settles as told.
 *
 * | record                        | outcome                          | next                        |
 * | ----------------------------- | -------------------------------- | --------------------------- |
 * | unreadable (malformed)        |                                  | park (no record to mark)    |
 * | unavailable (claim failed)    |                                  | later, running nothing      |
 * | done                          |                                  | duplicate                   |
 * | parked by another message     |                                  | duplicate                   |
 * | parked by this message        |                                  | park (dead-letter it now)   |
 * | running elsewhere             |                                  | later                       |
 * | claimed, its lease had lapsed | none yet; the action not idempotent | unknown, not run       |
 * | claimed                       | none yet                         | run                         |
 * | claimed                       | succeeded, rejected              | done                        |
 * | claimed                       | busy                             | again, after its Retry-After |
 * | claimed                       | not-sent                         | again, with backoff         |
 * | claimed                       | unknown, failed; idempotent      | again, with backoff         |
 * | claimed                       | unknown, failed                  | park                        |
 * | claimed                       | refused (its params tampered with included) | park             |
 *
 * - **park**: the record says `parked` (when this message claimed it), and the message moves to the
 *   dead-letter queue with the reason. Nothing runs it again unless an operator redrives it.
 * - **later**: back to the queue after a delay, the record as it is.
 * - **again**: later, with the claim released, so the next copy claims it and tries. Once the tries
 *   are spent: park.
 * - **duplicate**: nothing runs, nothing is written.
 *
 * A message whose send to the dead-letter queue failed comes again (later), and is parked then: its
 * record already says so.
 *
 * The rule behind every row: the consumer never repeats on its own what may have happened. After a
 * lapsed lease, the run before may have reached the action. What surely did not reach the action is
 * tried again.
 */
import type { RunOutcome } from './outcome.ts';

/** What the ledger says of a message's delivery, once the message asked to claim it. */
export type RecordStatus =
  | Claimed
  /** It ran already, or another consumer is running it now. */
  | { readonly status: 'done' | 'running' }
  /** Parked, with its reason: by this very message (whose dead-letter send failed) or another. */
  | { readonly status: 'parked'; readonly reason: string; readonly byThisMessage: boolean }
  /** No claim: the message names no delivery (malformed), or the ledger could not be reached. */
  | { readonly status: 'unreadable' | 'unavailable'; readonly reason: string };

/** Ours to run: its token, this attempt's number, and whether a run before it stopped running. */
interface Claimed {
  readonly status: 'claimed';
  readonly token: string;
  readonly attempt: number;
  readonly lapsed: boolean;
}

/** How a message ended, for the log line and the batch response. */
export type MessageResult =
  | { readonly settled: 'done' | 'duplicate' | 'parked'; readonly detail?: string }
  | { readonly settled: 'later'; readonly afterSeconds: number; readonly detail: string };

/** Before a claimed message's run: run it, or take its outcome as known without running. */
type RunOrSkip = { readonly run: true } | { readonly run: false; readonly outcome: RunOutcome };

/**
 * How a message ends, and what its ledger record becomes first: `done` (complete), `pending`
 * (the claim released: again), `parked`; none, it stays as it is. A `parked` result also sends
 * the message to the dead-letter queue.
 */
export interface Settling {
  readonly result: MessageResult;
  readonly becomes?: 'done' | 'pending' | 'parked';
}

export type Verdict = RunOrSkip | Settling;

/** The settings and the action's own say that a verdict depends on. */
export interface Rules {
  /** The action is marked idempotent in the secret: it may run again. */
  readonly idempotent: boolean;
  /** Tries of an invocation that did not reach its action, before it is parked. */
  readonly maxAttempts: number;
  /**
   * The wait before the second try, doubling for each later one; and before a message comes
   * back for a cause of the consumer's own.
   */
  readonly retrySeconds: number;
}

/** The most a try waits: 15 minutes. */
const RETRY_MAX_SECONDS = 15 * 60;

const later = (afterSeconds: number, detail: string, becomes?: 'pending'): Settling => ({
  result: { settled: 'later', afterSeconds, detail },
  becomes,
});
const parked = (detail: string, becomes?: 'parked'): Settling => ({
  result: { settled: 'parked', detail },
  becomes,
});
const duplicate = (of: 'done' | 'parked'): Settling => ({
  result: { settled: 'duplicate', detail: of },
});

/**
 * The verdict on a message: from its record alone, or, once claimed, whether to run it and then
 * how to settle its outcome.
 */
export function decide(
  record: Exclude<RecordStatus, Claimed>,
  outcome: undefined,
  rules: Rules,
): Settling;
export function decide(record: Claimed, outcome: undefined, rules: Rules): RunOrSkip;
export function decide(record: Claimed, outcome: RunOutcome, rules: Rules): Settling;
export function decide(
  record: RecordStatus,
  outcome: RunOutcome | undefined,
  rules: Rules,
): Verdict;
export function decide(
  record: RecordStatus,
  outcome: RunOutcome | undefined,
  rules: Rules,
): Verdict {
  switch (record.status) {
    case 'unreadable':
      return parked(record.reason);
    case 'unavailable':
      return later(rules.retrySeconds, record.reason);
    case 'done':
      return duplicate('done');
    case 'parked':
      return record.byThisMessage ? parked(record.reason) : duplicate('parked');
    case 'running':
      return later(rules.retrySeconds, 'the same delivery is running elsewhere');
    case 'claimed':
      if (outcome) return settle(record.attempt, outcome, rules);
      if (record.lapsed && !rules.idempotent) {
        const reason = 'an earlier run stopped before its outcome was known';
        return { run: false, outcome: { kind: 'unknown', reason } };
      }
      return { run: true };
  }
}

/** The verdict on a claimed message's outcome. */
function settle(attempt: number, outcome: RunOutcome, rules: Rules): Settling {
  const again = (afterSeconds: number, reason: string) =>
    attempt >= rules.maxAttempts
      ? parked(`${outcome.kind}: ${reason} (after ${attempt} attempts)`, 'parked')
      : later(afterSeconds, reason, 'pending');
  // Backoff of tries that did not reach the action: 10 s, 20 s, 40 s, ..., at most 15 min.
  const backoff = Math.min(rules.retrySeconds * 2 ** (attempt - 1), RETRY_MAX_SECONDS);
  switch (outcome.kind) {
    case 'succeeded':
    case 'rejected':
      return {
        result: { settled: 'done', detail: `${outcome.kind} ${outcome.status}` },
        becomes: 'done',
      };
    case 'busy':
      return again(outcome.retryAfterSeconds, `the action answered ${outcome.status}`);
    case 'not-sent':
      return again(backoff, outcome.reason);
    case 'unknown':
    case 'failed':
      return rules.idempotent
        ? again(backoff, outcome.reason)
        : parked(`${outcome.kind}: ${outcome.reason}`, 'parked');
    case 'refused':
      return parked(`refused: ${outcome.reason}`, 'parked');
  }
}
