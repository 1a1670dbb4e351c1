/**
 * The consumer's decisions as a table: each row a record status and an outcome, and what the
 * consumer does next. The table of decision.ts, row for row.
 */
import { describe, expect, it } from 'vitest';
import {
  decide,
  type RecordStatus,
  type Rules,
  type Verdict,
} from '../../../../lib/webhooks/decision.ts';
import type { RunOutcome } from '../../../../lib/webhooks/outcome.ts';

const RULES: Rules = { idempotent: false, maxAttempts: 5, retrySeconds: 10 };
const IDEMPOTENT: Rules = { ...RULES, idempotent: true };

const claimed = (attempt = 1, lapsed = false): RecordStatus => ({
  status: 'claimed',
  token: 't',
  attempt,
  lapsed,
});

/** Back to the queue, the claim released for the next copy. */
const again = (afterSeconds: number, detail: string): Verdict => ({
  result: { settled: 'later', afterSeconds, detail },
  becomes: 'pending',
});
/** Parked, the record marked so: this message's claim. */
const parked = (detail: string): Verdict => ({
  result: { settled: 'parked', detail },
  becomes: 'parked',
});

const succeeded: RunOutcome = { kind: 'succeeded', status: 200 };
const rejected: RunOutcome = { kind: 'rejected', status: 422 };
const busy: RunOutcome = { kind: 'busy', status: 429, retryAfterSeconds: 7 };
const notSent: RunOutcome = { kind: 'not-sent', reason: 'the action could not be reached' };
const unknown: RunOutcome = { kind: 'unknown', reason: 'no answer before the deadline' };
const failed: RunOutcome = { kind: 'failed', status: 502, reason: 'the action answered 502' };
const refused: RunOutcome = { kind: 'refused', reason: 'no action named "nope"' };

describe('decide', () => {
  it.each<[string, RecordStatus, RunOutcome | undefined, Rules, Verdict]>([
    [
      'a malformed message is parked, with no record to mark',
      { status: 'unreadable', reason: 'malformed: not JSON' },
      undefined,
      RULES,
      { result: { settled: 'parked', detail: 'malformed: not JSON' } },
    ],
    [
      'a message whose claim failed comes back later, running nothing',
      { status: 'unavailable', reason: 'delivery ledger unavailable: X' },
      undefined,
      RULES,
      { result: { settled: 'later', afterSeconds: 10, detail: 'delivery ledger unavailable: X' } },
    ],
    [
      'a copy of a done delivery is a duplicate',
      { status: 'done' },
      undefined,
      RULES,
      { result: { settled: 'duplicate', detail: 'done' } },
    ],
    [
      'a copy of a delivery another message parked is a duplicate',
      { status: 'parked', reason: 'failed: x', byThisMessage: false },
      undefined,
      RULES,
      { result: { settled: 'duplicate', detail: 'parked' } },
    ],
    [
      'the message that parked it, back because its dead-letter send failed, is parked now',
      { status: 'parked', reason: 'failed: x', byThisMessage: true },
      undefined,
      RULES,
      { result: { settled: 'parked', detail: 'failed: x' } },
    ],
    [
      'a delivery running elsewhere comes back later',
      { status: 'running' },
      undefined,
      RULES,
      {
        result: {
          settled: 'later',
          afterSeconds: 10,
          detail: 'the same delivery is running elsewhere',
        },
      },
    ],
    [
      'a claim over a lapsed lease of an action that is not idempotent: unknown, not run',
      claimed(2, true),
      undefined,
      RULES,
      {
        run: false,
        outcome: { kind: 'unknown', reason: 'an earlier run stopped before its outcome was known' },
      },
    ],
    [
      'a claim over a lapsed lease of an idempotent action runs',
      claimed(2, true),
      undefined,
      IDEMPOTENT,
      { run: true },
    ],
    ['a claim runs', claimed(), undefined, RULES, { run: true }],
    [
      'succeeded: done',
      claimed(),
      succeeded,
      RULES,
      { result: { settled: 'done', detail: 'succeeded 200' }, becomes: 'done' },
    ],
    [
      "rejected (the action's own 4xx): done",
      claimed(),
      rejected,
      RULES,
      { result: { settled: 'done', detail: 'rejected 422' }, becomes: 'done' },
    ],
    [
      'busy: again after its Retry-After',
      claimed(),
      busy,
      RULES,
      again(7, 'the action answered 429'),
    ],
    [
      'not-sent: again with backoff (10 s, then 20 s, ...)',
      claimed(2),
      notSent,
      RULES,
      again(20, notSent.reason),
    ],
    [
      'unknown: parked',
      claimed(),
      unknown,
      RULES,
      parked('unknown: no answer before the deadline'),
    ],
    [
      'unknown, the action idempotent: again with backoff',
      claimed(3),
      unknown,
      IDEMPOTENT,
      again(40, unknown.reason),
    ],
    ['failed: parked', claimed(), failed, RULES, parked('failed: the action answered 502')],
    [
      'failed, the action idempotent: again with backoff',
      claimed(),
      failed,
      IDEMPOTENT,
      again(10, failed.reason),
    ],
    [
      'refused: parked at once',
      claimed(),
      refused,
      IDEMPOTENT,
      parked('refused: no action named "nope"'),
    ],
    [
      'again, once the attempts are spent: parked, saying after how many',
      claimed(5),
      busy,
      RULES,
      parked('busy: the action answered 429 (after 5 attempts)'),
    ],
    [
      'not-sent at the last attempt: parked',
      claimed(5),
      notSent,
      RULES,
      parked('not-sent: the action could not be reached (after 5 attempts)'),
    ],
  ])('%s', (_case, record, outcome, rules, verdict) => {
    expect(decide(record, outcome, rules)).toEqual(verdict);
  });

  it('backs off doubling from the retry setting, at most 15 minutes', () => {
    const waits = [1, 2, 3, 7, 8, 20].map((attempt) => {
      const verdict = decide(claimed(attempt), notSent, { ...RULES, maxAttempts: 99 });
      return 'result' in verdict && verdict.result.settled === 'later'
        ? verdict.result.afterSeconds
        : undefined;
    });
    expect(waits).toEqual([10, 20, 40, 640, 900, 900]);
  });

  it('decides a record that is not claimed by the record alone, whatever the outcome', () => {
    expect(decide({ status: 'done' }, succeeded, RULES)).toEqual({
      result: { settled: 'duplicate', detail: 'done' },
    });
  });
});
