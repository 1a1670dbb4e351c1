/**
 * The consumer's decisions as a table: each row a record status and an outcome, and what the
 * consumer does next. The table of decision.ts, row for row.
 */
import { describe, expect, it } from 'vitest';
import { decide, type RecordStatus, type Rules } from '../../../../lib/webhooks/decision.js';
import type { RunOutcome } from '../../../../lib/webhooks/outcome.js';

const RULES: Rules = { idempotent: false, maxAttempts: 5, retrySeconds: 10 };
const IDEMPOTENT: Rules = { ...RULES, idempotent: true };

const claimed = (attempt = 1, lapsed = false): RecordStatus => ({
  status: 'claimed',
  token: 't',
  attempt,
  lapsed,
});

const succeeded: RunOutcome = { kind: 'succeeded', status: 200 };
const rejected: RunOutcome = { kind: 'rejected', status: 422 };
const busy: RunOutcome = { kind: 'busy', status: 429, retryAfterSeconds: 7 };
const notSent: RunOutcome = { kind: 'not-sent', reason: 'the action could not be reached' };
const unknown: RunOutcome = { kind: 'unknown', reason: 'no answer before the deadline' };
const failed: RunOutcome = { kind: 'failed', status: 502, reason: 'the action answered 502' };
const refused: RunOutcome = { kind: 'refused', reason: 'no action named "nope"' };

describe('decide', () => {
  it.each<[string, RecordStatus, RunOutcome | undefined, Rules, ReturnType<typeof decide>]>([
    [
      'a malformed message is parked, with no record to mark',
      { status: 'unreadable', reason: 'malformed: not JSON' },
      undefined,
      RULES,
      { next: 'park', reason: 'malformed: not JSON', mark: false },
    ],
    [
      'a message whose claim failed comes back later, running nothing',
      { status: 'unavailable', reason: 'delivery ledger unavailable: X' },
      undefined,
      RULES,
      { next: 'later', afterSeconds: 10, reason: 'delivery ledger unavailable: X', release: false },
    ],
    [
      'a copy of a done delivery is a duplicate',
      { status: 'done' },
      undefined,
      RULES,
      { next: 'duplicate', of: 'done' },
    ],
    [
      'a copy of a delivery another message parked is a duplicate',
      { status: 'parked', reason: 'failed: x', byThisMessage: false },
      undefined,
      RULES,
      { next: 'duplicate', of: 'parked' },
    ],
    [
      'the message that parked it, back because its dead-letter send failed, is parked now',
      { status: 'parked', reason: 'failed: x', byThisMessage: true },
      undefined,
      RULES,
      { next: 'park', reason: 'failed: x', mark: false },
    ],
    [
      'a delivery running elsewhere comes back later',
      { status: 'running' },
      undefined,
      RULES,
      {
        next: 'later',
        afterSeconds: 10,
        reason: 'the same delivery is running elsewhere',
        release: false,
      },
    ],
    [
      'a claim over a lapsed lease of an action that is not idempotent: unknown, not run',
      claimed(2, true),
      undefined,
      RULES,
      {
        next: 'assume',
        outcome: { kind: 'unknown', reason: 'an earlier run stopped before its outcome was known' },
      },
    ],
    [
      'a claim over a lapsed lease of an idempotent action runs',
      claimed(2, true),
      undefined,
      IDEMPOTENT,
      { next: 'run' },
    ],
    ['a claim runs', claimed(), undefined, RULES, { next: 'run' }],
    ['succeeded: done', claimed(), succeeded, RULES, { next: 'done', detail: 'succeeded 200' }],
    [
      "rejected (the action's own 4xx): done",
      claimed(),
      rejected,
      RULES,
      { next: 'done', detail: 'rejected 422' },
    ],
    [
      'busy: again after its Retry-After',
      claimed(),
      busy,
      RULES,
      { next: 'later', afterSeconds: 7, reason: 'the action answered 429', release: true },
    ],
    [
      'not-sent: again with backoff (10 s, then 20 s, ...)',
      claimed(2),
      notSent,
      RULES,
      { next: 'later', afterSeconds: 20, reason: notSent.reason, release: true },
    ],
    [
      'unknown: parked',
      claimed(),
      unknown,
      RULES,
      { next: 'park', reason: 'unknown: no answer before the deadline', mark: true },
    ],
    [
      'unknown, the action idempotent: again with backoff',
      claimed(3),
      unknown,
      IDEMPOTENT,
      { next: 'later', afterSeconds: 40, reason: unknown.reason, release: true },
    ],
    [
      'failed: parked',
      claimed(),
      failed,
      RULES,
      { next: 'park', reason: 'failed: the action answered 502', mark: true },
    ],
    [
      'failed, the action idempotent: again with backoff',
      claimed(),
      failed,
      IDEMPOTENT,
      { next: 'later', afterSeconds: 10, reason: failed.reason, release: true },
    ],
    [
      'refused: parked at once',
      claimed(),
      refused,
      IDEMPOTENT,
      { next: 'park', reason: 'refused: no action named "nope"', mark: true },
    ],
    [
      'again, once the attempts are spent: parked, saying after how many',
      claimed(5),
      busy,
      RULES,
      { next: 'park', reason: 'busy: the action answered 429 (after 5 attempts)', mark: true },
    ],
    [
      'not-sent at the last attempt: parked',
      claimed(5),
      notSent,
      RULES,
      {
        next: 'park',
        reason: 'not-sent: the action could not be reached (after 5 attempts)',
        mark: true,
      },
    ],
  ])('%s', (_case, record, outcome, rules, verdict) => {
    expect(decide(record, outcome, rules)).toEqual(verdict);
  });

  it('backs off doubling from the retry setting, at most 15 minutes', () => {
    const waits = [1, 2, 3, 7, 8, 20].map((attempt) => {
      const verdict = decide(claimed(attempt), notSent, { ...RULES, maxAttempts: 99 });
      return verdict.next === 'later' ? verdict.afterSeconds : undefined;
    });
    expect(waits).toEqual([10, 20, 40, 640, 900, 900]);
  });

  it('decides a record that is not claimed by the record alone, whatever the outcome', () => {
    expect(decide({ status: 'done' }, succeeded, RULES)).toEqual({
      next: 'duplicate',
      of: 'done',
    });
  });
});
