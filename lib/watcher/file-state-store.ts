/**
 * The watcher's last view in one local JSON file, replaced atomically: for `npm start` and
 * `serverless invoke local` (a Lambda's disk does not outlive its container).
 */
import { randomUUID } from 'node:crypto';
import { mkdir, open, readFile, rename, unlink } from 'node:fs/promises';
import path from 'node:path';
import * as z from 'zod/mini';
import { WatcherStateError } from '../core/errors.ts';
import { parseJsonOrUndefined } from '../core/json.ts';
import type { RecordedJob } from './changes.ts';
import type { WatchCursor, WatcherStateStore } from './state-store.ts';

const stateFileSchema = z.object({
  version: z.literal(1),
  jobs: z.record(z.string(), z.object({ status: z.string(), updatedAt: z.string() })),
  cursor: z.optional(
    z.object({ nextPage: z.number(), pageSize: z.number(), baselining: z.boolean() }),
  ),
});
type StateFile = z.infer<typeof stateFileSchema>;

/**
 * The local store: one JSON file. Runs on one machine are not expected to overlap, so a claim
 * is granted whenever the recorded status is still the previous one.
 */
export function fileStateStore(file: string): WatcherStateStore {
  let jobs = new Map<string, RecordedJob>();
  let cursor: WatchCursor | undefined;
  const calls = { reads: 0, writes: 0 };
  // Saves one after the other, each of the view as it is when its turn comes: two saves that
  // overlapped could otherwise rename an older view over a newer one.
  let saving: Promise<void> = Promise.resolve();
  const save = () => {
    calls.writes += 1;
    const turn = saving.then(() => {
      const state: StateFile = { version: 1, jobs: Object.fromEntries(jobs), cursor };
      return writeFileAtomically(file, `${JSON.stringify(state)}\n`);
    });
    saving = turn.catch(() => {});
    return turn;
  };
  return {
    description: `file ${file}`,
    calls,
    async load() {
      calls.reads += 1;
      ({ jobs, cursor } = await readStateFile(file));
      return { jobs: new Map(jobs), cursor };
    },
    async saveCursor(next) {
      if (next === undefined && cursor === undefined) return;
      cursor = next;
      await save();
    },
    async baseline(observed, at) {
      if (observed.length === 0) return;
      for (const job of observed) jobs.set(job.instanceNo, { status: job.status, updatedAt: at });
      await save();
    },
    async claim(changes) {
      return changes.filter(
        (change) => (jobs.get(change.job.instanceNo)?.status ?? null) === change.previousStatus,
      );
    },
    async record(changes, _lease, at) {
      if (changes.length === 0) return;
      for (const { job } of changes)
        jobs.set(job.instanceNo, { status: job.status, updatedAt: at });
      await save();
    },
    async release() {
      // Nothing to hand back: claims of the local store live only as long as the run.
    },
  };
}

async function readStateFile(
  file: string,
): Promise<{ jobs: Map<string, RecordedJob>; cursor: WatchCursor | undefined }> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      return { jobs: new Map(), cursor: undefined };
    }
    throw error;
  }
  const parsed = stateFileSchema.safeParse(parseJsonOrUndefined(text));
  // Refuse rather than start afresh: an empty view would take every job for new.
  if (!parsed.success) throw new WatcherStateError(`The watcher state file ${file} is malformed`);
  return { jobs: new Map(Object.entries(parsed.data.jobs)), cursor: parsed.data.cursor };
}

/**
 * Replaces `file` with `text` so that a reader (or a crash) sees the old file or the new one,
 * never a part: write a temporary file beside it, flush it to disk, rename it over the file.
 */
export async function writeFileAtomically(file: string, text: string): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.${randomUUID()}.tmp`;
  try {
    const handle = await open(temporary, 'wx');
    try {
      await handle.writeFile(text, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, file);
  } catch (error) {
    await unlink(temporary).catch(() => {});
    throw error;
  }
}
