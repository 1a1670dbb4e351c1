/**
 * Where the scan job watcher keeps its last view between runs: the interface its stores
 * implement (dynamo-state-store.ts when deployed, file-state-store.ts locally).
 */
import type { ObservedJob, RecordedJob, StatusChange } from './changes.js';

/** One run's right to announce the changes it claimed. */
export interface RunLease {
  /** Unique per run: only the run that claimed a change records it. */
  readonly token: string;
  /** Epoch ms after which the run is surely over (its invocation's deadline); claims lapse. */
  readonly expiresAt: number;
}

export interface WatcherStateStore {
  /** For log lines: where the state lives (a table or a path). */
  readonly description: string;
  /** The recorded status of every job. */
  load(): Promise<Map<string, RecordedJob>>;
  /** Records jobs as seen without announcing them (the first run on an empty store). */
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
}
