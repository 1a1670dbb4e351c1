/**
 * Where the scan job watcher keeps its last view between runs: the interface its stores
 * implement (dynamo-state-store.ts when deployed, file-state-store.ts locally).
 */
import type { ObservedJob, RecordedJob, StatusChange } from './changes.ts';

/** One run's right to announce the changes it claimed. */
export interface RunLease {
  /** Unique per run: only the run that claimed a change records it. */
  readonly token: string;
  /** Epoch ms after which the run is surely over (its invocation's deadline); claims lapse. */
  readonly expiresAt: number;
}

/**
 * Where a pass that could not read every page stopped: the next pass starts there, and goes
 * round the list from there, rather than starting over from page 1.
 */
export interface WatchCursor {
  /** The first page not yet done, at `pageSize` jobs a page. */
  readonly nextPage: number;
  readonly pageSize: number;
  /**
   * The baseline was still being recorded: a job found unrecorded is history to record, not a
   * new job to announce (the first passes over an empty store).
   */
  readonly baselining: boolean;
}

export interface WatcherState {
  /** The recorded status of every job. */
  readonly jobs: Map<string, RecordedJob>;
  /** Where the last pass stopped, when it stopped short. */
  readonly cursor: WatchCursor | undefined;
}

/** Calls a store has made, for the cost of a pass (DynamoDB calls, or file reads and writes). */
interface StoreCalls {
  readonly reads: number;
  readonly writes: number;
}

export interface WatcherStateStore {
  /** For log lines: where the state lives (a table or a path). */
  readonly description: string;
  /** Counted since the store was made. */
  readonly calls: StoreCalls;
  /** The recorded status of every job, and the last pass's cursor. */
  load(): Promise<WatcherState>;
  /** Records jobs as seen without announcing them (the first runs on an empty store). */
  baseline(jobs: readonly ObservedJob[], at: string): Promise<void>;
  /**
   * Takes the right to announce each change, and returns the changes this run won: not those
   * another run is announcing, nor those whose recorded status is no longer the previous one.
   */
  claim(changes: readonly StatusChange[], lease: RunLease): Promise<StatusChange[]>;
  /** Records announced changes as the new last view. */
  record(changes: readonly StatusChange[], lease: RunLease, at: string): Promise<void>;
  /** Hands back claims of changes that could not be announced, for the next run. */
  release(changes: readonly StatusChange[], lease: RunLease): Promise<void>;
  /** Keeps where this pass stopped, or forgets it (undefined) once a pass has gone round. */
  saveCursor(cursor: WatchCursor | undefined): Promise<void>;
}
