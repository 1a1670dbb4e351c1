/**
 * The delivery ledger makes a queued invocation run its action once. The consumer claims the
 * invocation's key before it runs it. Every write is conditional, so of any number of copies, one
 * wins the claim. Copies come from a sender's retries, SQS sending a message again, consumers side
 * by side, or local workers. A record is in one of four states:
 *
 *   running  claimed by a consumer, under a lease (its function's deadline and a margin)
 *   done     it ran, or the action refused its input for good: copies run nothing
 *   pending  the last try did not reach the action, or the action asked to be called later
 *            (busy): the next copy claims it and tries again; `attempts` counts the tries
 *   parked   its outcome is unknown or it cannot run: its message is in the dead-letter queue
 *            with the reason, and copies run nothing unless an operator redrives it
 *
 *   claim:    running, attempts + 1   IF no record, OR expired, OR pending,
 *                                     OR running with a lapsed lease (its consumer stopped),
 *                                     OR parked and this is the operator's redrive
 *   complete: done                    IF the token is ours
 *   release:  pending                 IF the token is ours
 *   park:     parked, with the reason IF the token is ours
 *
 * A claim that takes over a lapsed lease says so. The run before it may have reached the action, so
 * its outcome is unknown.
 *
 * A key is remembered at least as long as a sender may retry. Standard Webhooks senders retry for
 * days, signing each retry again with the same id. So DELIVERY_MEMORY_DAYS is 4 by default, as long
 * as the queue keeps a message. A `parked` record stays as long as the dead-letter queue keeps its
 * message (14 days). So a late copy does not run what no operator has looked at yet.
 *
 * Two ledgers keep these rules, and test/helpers/delivery-ledger-rules.ts holds both to them. A
 * DynamoDB table serves when deployed and under `npm start` (dynamo-ledger.ts). This process's
 * memory serves otherwise (below).
 */
import { randomUUID } from 'node:crypto';

/** The signature tolerance: a delivery is accepted this long either side of its timestamp. */
export const ACCEPTANCE_WINDOW_MS = 5 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;
/** How long a done delivery is remembered by default: the invocation queue's retention. */
export const DEFAULT_MEMORY_MS = 4 * DAY_MS;
/** How long a parked delivery is remembered: the dead-letter queue's retention. */
export const PARKED_MEMORY_MS = 14 * DAY_MS;

/** When a delivery stamped `timestampMs` may be forgotten: `memoryMs` after its last copy. */
export function rememberUntil(timestampMs: number, nowMs: number, memoryMs = DEFAULT_MEMORY_MS) {
  return Math.max(timestampMs + ACCEPTANCE_WINDOW_MS, nowMs) + memoryMs;
}

export type ClaimResult =
  | {
      readonly outcome: 'claimed';
      readonly token: string;
      /** This attempt's number: 1 for the first. */
      readonly attempt: number;
      /** The run before this one stopped while running: it may have reached the action. */
      readonly lapsed: boolean;
    }
  /** It ran already (or the action refused its input): this copy is a duplicate. */
  | { readonly outcome: 'done' }
  /** Another consumer is running it now, under a lease that has not lapsed. */
  | { readonly outcome: 'running' }
  /** It is parked: this copy runs nothing. `messageId` is the message that was parked. */
  | { readonly outcome: 'parked'; readonly reason: string; readonly messageId: string };

export interface ClaimRequest {
  readonly key: string;
  /** Epoch ms until which the record is kept. */
  readonly rememberUntilMs: number;
  /** Epoch ms after which a running claim counts as abandoned. */
  readonly leaseUntilMs: number;
  /** The operator redrove a parked message: it may run again (its attempts start afresh). */
  readonly redrive?: boolean;
}

export interface ParkRequest {
  readonly reason: string;
  /** The SQS message that carries it to the dead-letter queue. */
  readonly messageId: string;
  readonly rememberUntilMs: number;
}

export interface DeliveryLedger {
  /** Where records are kept, for log lines. */
  readonly description: string;
  claim(request: ClaimRequest): Promise<ClaimResult>;
  complete(key: string, token: string, rememberUntilMs: number): Promise<void>;
  release(key: string, token: string): Promise<void>;
  park(key: string, token: string, request: ParkRequest): Promise<void>;
}

type State = 'running' | 'done' | 'pending' | 'parked';

interface Entry {
  state: State;
  token: string;
  expiresAt: number;
  leaseUntil: number;
  attempts: number;
  reason?: string;
  messageId?: string;
}

/**
 * The ledger in one process's memory: for `serverless invoke local` and unit tests, where no
 * table is configured. It does not outlive the process or reach other workers.
 */
export function memoryDeliveryLedger(now: () => number = Date.now): DeliveryLedger {
  const entries = new Map<string, Entry>();
  const ours = (key: string, token: string) => {
    const entry = entries.get(key);
    return entry?.token === token ? entry : undefined;
  };
  return {
    description: 'memory (this process only)',
    async claim({ key, rememberUntilMs, leaseUntilMs, redrive }) {
      const at = now();
      const entry = entries.get(key);
      const live = entry && entry.expiresAt > at ? entry : undefined;
      if (live?.state === 'done') return { outcome: 'done' };
      if (live?.state === 'running' && live.leaseUntil > at) return { outcome: 'running' };
      if (live?.state === 'parked' && !redrive) {
        return { outcome: 'parked', reason: live.reason ?? '', messageId: live.messageId ?? '' };
      }
      const token = newToken();
      const attempt = live && !(live.state === 'parked' && redrive) ? live.attempts + 1 : 1;
      entries.set(key, {
        state: 'running',
        token,
        expiresAt: rememberUntilMs,
        leaseUntil: leaseUntilMs,
        attempts: attempt,
      });
      return { outcome: 'claimed', token, attempt, lapsed: live?.state === 'running' };
    },
    async complete(key, token, rememberUntilMs) {
      const entry = ours(key, token);
      if (entry) Object.assign(entry, { state: 'done', expiresAt: rememberUntilMs });
    },
    async release(key, token) {
      const entry = ours(key, token);
      if (entry) entry.state = 'pending';
    },
    async park(key, token, { reason, messageId, rememberUntilMs }) {
      const entry = ours(key, token);
      if (entry)
        Object.assign(entry, { state: 'parked', reason, messageId, expiresAt: rememberUntilMs });
    },
  };
}

/** A claim's token: only its holder may complete, release or park the record. */
export function newToken(): string {
  return randomUUID();
}
