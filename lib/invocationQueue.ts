/**
 * Where the webhook receiver hands its deliveries (contract section 8). Two implementations,
 * chosen by configuration:
 *
 * - SQS (INVOCATION_QUEUE_URL set, when deployed): a FIFO queue. MessageDeduplicationId is the
 *   delivery's key, so SQS drops a second copy sent within its 5-minute deduplication interval,
 *   which covers the sender's replay window (a signature older than 5 minutes is refused
 *   before it gets here). MessageGroupId is the webhook's name: one webhook's deliveries run
 *   in order.
 * - In process (unset, local runs, where no SQS runs): a once-only store remembers each key
 *   for the same 5 minutes, and the consumer's own code runs the message right after the
 *   receiver has answered. There is no retry and no dead-letter queue locally: a failure is
 *   logged. (In Lambda nothing runs after the response, which is why a deployed receiver
 *   needs the queue.)
 */
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { functionExecutionOf } from './actions.js';
import { UnexpectedError } from './errors.js';
import { type Invocation, type InvocationOutcome, processMessage } from './invocations.js';
import { describeError, type Logger } from './log.js';
import type { Runtime } from './runtime.js';

export interface EnqueueOptions {
  /** Deliveries with the same id within the deduplication window run once. */
  readonly deduplicationId: string;
  /** Messages of one group run in order. */
  readonly groupId: string;
}

export interface EnqueueResult {
  /** True when the in-process store knew the id already (SQS does not say). */
  readonly duplicate: boolean;
}

export interface InvocationQueue {
  enqueue(invocation: Invocation, options: EnqueueOptions): Promise<EnqueueResult>;
}

/** SQS FIFO's deduplication interval, and the span the in-process store remembers an id. */
export const DEDUPLICATION_WINDOW_MS = 5 * 60 * 1000;

export interface SqsInvocationQueueOptions {
  readonly queueUrl: string;
  /** Builds the client on first use (cold starts that never enqueue do not pay for it). */
  readonly client?: () => SQSClient;
}

export class SqsInvocationQueue implements InvocationQueue {
  private client: SQSClient | undefined;

  constructor(private readonly options: SqsInvocationQueueOptions) {}

  async enqueue(invocation: Invocation, options: EnqueueOptions): Promise<EnqueueResult> {
    this.client ??= (this.options.client ?? (() => new SQSClient({})))();
    try {
      await this.client.send(
        new SendMessageCommand({
          QueueUrl: this.options.queueUrl,
          MessageBody: JSON.stringify(invocation),
          MessageDeduplicationId: options.deduplicationId,
          MessageGroupId: options.groupId,
        }),
      );
    } catch (error) {
      // The sender gets a 500 and delivers again later; the FIFO key keeps that to one run.
      throw new UnexpectedError(error);
    }
    return { duplicate: false };
  }
}

/** Remembers keys for a while; `claim` is true only for the first claim of a key. */
export class OnceOnlyStore {
  private readonly seen = new Map<string, number>();

  constructor(
    private readonly ttlMs: number = DEDUPLICATION_WINDOW_MS,
    private readonly now: () => number = Date.now,
  ) {}

  claim(key: string): boolean {
    const now = this.now();
    // Map order is insertion order and every entry lives as long: expired ones are at the front.
    for (const [seenKey, expiresAt] of this.seen) {
      if (expiresAt > now) break;
      this.seen.delete(seenKey);
    }
    if (this.seen.has(key)) return false;
    this.seen.set(key, now + this.ttlMs);
    return true;
  }
}

export interface InProcessInvocationQueueOptions {
  /** Runs one message body: the consumer's code. */
  readonly run: (body: string) => Promise<InvocationOutcome>;
  readonly log: Logger;
  readonly store?: OnceOnlyStore;
}

export class InProcessInvocationQueue implements InvocationQueue {
  private readonly store: OnceOnlyStore;
  private readonly pending = new Set<Promise<void>>();

  constructor(private readonly options: InProcessInvocationQueueOptions) {
    this.store = options.store ?? new OnceOnlyStore();
  }

  async enqueue(invocation: Invocation, options: EnqueueOptions): Promise<EnqueueResult> {
    if (!this.store.claim(options.deduplicationId)) return { duplicate: true };
    // Serialised as SQS would carry it, so the consumer's parsing runs on the same text.
    const body = JSON.stringify(invocation);
    const task = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.options.run(body))
      .then(
        () => undefined,
        (error: unknown) => this.options.log.error('invocation crashed', describeError(error)),
      )
      .finally(() => this.pending.delete(task));
    this.pending.add(task);
    return { duplicate: false };
  }

  /** Resolves when every handed-over message has run (tests, graceful stops). */
  async idle(): Promise<void> {
    while (this.pending.size > 0) await Promise.all(this.pending);
  }
}

export function createInvocationQueue(runtime: Runtime): InvocationQueue {
  const queueUrl = runtime.config.invocationQueueUrl;
  if (queueUrl) return new SqsInvocationQueue({ queueUrl });
  const log = runtime.log.child({ function: 'invocationQueue' });
  return new InProcessInvocationQueue({
    log,
    run: (body) => processMessage(body, { functions: functionExecutionOf(runtime), log }),
  });
}

let shared: InvocationQueue | undefined;

/** The container's queue, built on first use from its runtime. */
export function getInvocationQueue(runtime: Runtime): InvocationQueue {
  shared ??= createInvocationQueue(runtime);
  return shared;
}
