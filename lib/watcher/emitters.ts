/**
 * Where the watcher announces each change: an EventBridge bus when one is configured, the log
 * otherwise. The EventBridge SDK is imported on first use.
 */
import type { EventBridgeClient, PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import type { Logger } from '../core/log.ts';
import { chunksOf, type StatusChangeDetail } from './changes.ts';

export const EVENT_SOURCE = 'platform.scan-jobs';
export const EVENT_DETAIL_TYPE = 'Scan Job Status Changed';
/** PutEvents takes at most 10 entries per call. */
const PUT_EVENTS_MAX_ENTRIES = 10;

/** A change that could not be announced, and why (an error code, never a payload). */
export interface EmitFailure {
  readonly detail: StatusChangeDetail;
  readonly reason: string;
}

export interface ChangeEmitter {
  /** For log lines: where the changes go. */
  readonly description: string;
  /**
   * Announces the changes; returns those it could not announce (the rest went out). `log` is
   * the run's own logger.
   */
  emit(details: readonly StatusChangeDetail[], log: Logger): Promise<EmitFailure[]>;
}

/** One structured log line per change, on the run's log. */
export function logEmitter(): ChangeEmitter {
  return {
    description: 'log',
    async emit(details, log) {
      for (const detail of details) log.info('scan job status changed', { ...detail });
      return [];
    },
  };
}

interface EventBridgeEmitterOptions {
  /** Name or ARN of the bus. */
  readonly busName: string;
  /** For tests; by default one client per container, configured from the environment. */
  readonly client?: EventBridgeClient;
  /** Tries of an entry EventBridge refused (the SDK itself retries whole failed calls). */
  readonly maxAttempts?: number;
  /** Wait before retrying refused entries, times the attempt number. */
  readonly retryDelayMs?: number;
}

/**
 * PutEvents in batches of 10. EventBridge may accept part of a batch: each refused entry is
 * sent again (alone with the other refused ones) up to maxAttempts, then reported as failed.
 */
export function eventBridgeEmitter(options: EventBridgeEmitterOptions): ChangeEmitter {
  const maxAttempts = options.maxAttempts ?? 3;
  const retryDelayMs = options.retryDelayMs ?? 200;
  let client = options.client;

  async function putEvents(entries: PutEventsRequestEntry[]) {
    const sdk = await import('@aws-sdk/client-eventbridge');
    client ??= new sdk.EventBridgeClient({
      requestHandler: { connectionTimeout: 1000, requestTimeout: 3000 },
      maxAttempts: 3,
    });
    return client.send(new sdk.PutEventsCommand({ Entries: entries }));
  }

  async function emitBatch(batch: readonly StatusChangeDetail[]): Promise<EmitFailure[]> {
    let pending: EmitFailure[] = batch.map((detail) => ({ detail, reason: 'not sent' }));
    for (let attempt = 1; attempt <= maxAttempts && pending.length > 0; attempt++) {
      if (attempt > 1) await sleep(retryDelayMs * (attempt - 1));
      pending = await sendOnce(pending.map((failure) => failure.detail));
    }
    return pending;
  }

  async function sendOnce(details: readonly StatusChangeDetail[]): Promise<EmitFailure[]> {
    let answer: Awaited<ReturnType<typeof putEvents>>;
    try {
      answer = await putEvents(details.map((detail) => entryOf(detail, options.busName)));
    } catch (error) {
      const reason = (error as Error).name || 'PutEventsFailed';
      return details.map((detail) => ({ detail, reason }));
    }
    // Entries answer in request order; a refused one has an ErrorCode instead of an EventId.
    const results = answer.Entries ?? [];
    return details.flatMap((detail, index) => {
      const result = results[index];
      if (result?.EventId && !result.ErrorCode) return [];
      return [{ detail, reason: result?.ErrorCode ?? 'NoResult' }];
    });
  }

  return {
    description: `EventBridge bus ${options.busName}`,
    async emit(details) {
      const failures: EmitFailure[] = [];
      for (const batch of chunksOf(details, PUT_EVENTS_MAX_ENTRIES)) {
        failures.push(...(await emitBatch(batch)));
      }
      return failures;
    },
  };
}

function entryOf(detail: StatusChangeDetail, busName: string): PutEventsRequestEntry {
  return {
    EventBusName: busName,
    Source: EVENT_SOURCE,
    DetailType: EVENT_DETAIL_TYPE,
    Detail: JSON.stringify(detail),
    Time: new Date(detail.observedAt),
  };
}

function sleep(ms: number): Promise<void> {
  return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve();
}
