import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { WatchRunError } from '../../../../lib/core/errors.ts';
import type { WalkPlan } from '../../../../lib/core/walk-plan.ts';
import { PageWalk } from '../../../../lib/scan-jobs/walk.ts';
import type { StatusChangeDetail } from '../../../../lib/watcher/changes.ts';
import type { ChangeEmitter, EmitFailure } from '../../../../lib/watcher/emitters.ts';
import { fileStateStore } from '../../../../lib/watcher/file-state-store.ts';
import type { WatcherStateStore } from '../../../../lib/watcher/state-store.ts';
import { ScanJobWatcher } from '../../../../lib/watcher/watcher.ts';
import { testCall } from '../../../helpers/call-context.ts';

/** The platform's list: jobs by instanceNo, served in pages of `pageSize`, read by the real walk. */
class FakeList {
  readonly jobs = new Map<string, string>();
  pageSize = 2;
  failOnPage: number | undefined;
  readonly served: number[] = [];
  listWalk(plan: WalkPlan): PageWalk {
    return new PageWalk({
      fetch: async (page) => {
        if (page === this.failOnPage) throw new Error('upstream failed');
        this.served.push(page);
        const all = [...this.jobs].map(([instanceNo, status]) => ({
          instanceNo,
          status,
          memo: 'm',
        }));
        const body = {
          resources: {
            record_data: all.slice((page - 1) * this.pageSize, page * this.pageSize),
            total_page_cnt: String(Math.ceil(all.length / this.pageSize)),
          },
        };
        return { status: 200, headers: {}, body: Buffer.from(JSON.stringify(body)), attempts: 1 };
      },
      plan,
      settings: { pageSize: this.pageSize, pageConcurrency: 2, cancelConcurrency: 1 },
      acceptedSize: { get: () => undefined, set: () => {} },
    });
  }
}

/** Keeps every change it announced; can refuse some, or throw. */
class RecordingEmitter implements ChangeEmitter {
  readonly description = 'test';
  readonly sent: StatusChangeDetail[] = [];
  refuse: (detail: StatusChangeDetail) => boolean = () => false;
  throwError = false;
  async emit(details: readonly StatusChangeDetail[]): Promise<EmitFailure[]> {
    if (this.throwError) throw new Error('emitter down');
    const failures: EmitFailure[] = [];
    for (const detail of details) {
      if (this.refuse(detail)) failures.push({ detail, reason: 'Refused' });
      else this.sent.push(detail);
    }
    return failures;
  }
}

const ids = (details: readonly StatusChangeDetail[]) => details.map((d) => d.changeId).sort();

describe('ScanJobWatcher', () => {
  let list: FakeList;
  let emitter: RecordingEmitter;
  let file: string;
  let store: WatcherStateStore;
  const watcher = (options: { baseline?: boolean; store?: WatcherStateStore } = {}) =>
    new ScanJobWatcher({ scanJobs: list, store: options.store ?? store, emitter, ...options });

  beforeEach(async () => {
    list = new FakeList();
    emitter = new RecordingEmitter();
    file = path.join(await mkdtemp(path.join(tmpdir(), 'watcher-')), 'state.json');
    store = fileStateStore(file);
    for (const [id, status] of [
      ['1', 'Complete'],
      ['2', 'Progress'],
      ['3', 'Reservation'],
    ] as const)
      list.jobs.set(id, status);
  });

  it('records a baseline on its first run, then announces only what changed', async () => {
    expect(await watcher().run(testCall())).toEqual({
      pages: 2,
      jobs: 3,
      changes: 0,
      emitted: 0,
      skipped: 0,
      baselined: 3,
      complete: true,
      stateReads: 1,
      stateWrites: 3, // the baseline begun, its one segment, the baseline done
    });
    expect(emitter.sent).toEqual([]);
    list.jobs.set('2', 'Complete');
    list.jobs.set('4', 'Reservation');
    list.jobs.delete('1'); // a job that leaves the list is neither a change nor forgotten
    const summary = await watcher().run(testCall());
    expect(summary).toMatchObject({ jobs: 3, changes: 2, emitted: 2 });
    expect(emitter.sent.map((d) => [d.changeId, d.previousStatus])).toEqual([
      ['2:Complete', 'Progress'],
      ['4:Reservation', null],
    ]);
    expect(emitter.sent[0]?.reportPath).toBe('/jobs/2/report');
    expect(await watcher().run(testCall())).toMatchObject({ changes: 0, emitted: 0 });
    expect(emitter.sent).toHaveLength(2);
  });

  it('announces every job as new when baseline is off', async () => {
    const summary = await watcher({ baseline: false }).run(testCall());
    expect(summary).toMatchObject({ changes: 3, emitted: 3, baselined: 0 });
    expect(ids(emitter.sent)).toEqual(['1:Complete', '2:Progress', '3:Reservation']);
  });

  it('throws when the list fails on page 2, and the next run goes on from page 2', async () => {
    await watcher().run(testCall());
    list.jobs.set('1', 'Stop');
    list.jobs.set('3', 'Cancel');
    list.failOnPage = 2;
    await expect(watcher().run(testCall())).rejects.toThrow(/could not be read/);
    // Page 1 was read: its change went out; page 2's could not be seen.
    expect(ids(emitter.sent)).toEqual(['1:Stop']);
    list.failOnPage = undefined;
    list.served.length = 0;
    expect(await watcher().run(testCall())).toMatchObject({
      complete: true,
      changes: 1,
      emitted: 1,
    });
    // From its cursor round the list: page 2, then page 1.
    expect(list.served).toEqual([2, 1]);
    expect(ids(emitter.sent)).toEqual(['1:Stop', '3:Cancel']);
  });

  it('announces nothing when the first page cannot be read', async () => {
    await watcher().run(testCall());
    list.jobs.set('1', 'Stop');
    list.failOnPage = 1;
    await expect(watcher().run(testCall())).rejects.toThrow();
    expect(emitter.sent).toEqual([]);
  });

  it('stops in time when its invocation runs out, keeps a cursor, and the next run goes round from it', async () => {
    for (let id = 4; id <= 12; id++) list.jobs.set(String(id), 'Progress');
    await watcher().run(testCall());
    for (let id = 1; id <= 12; id++) list.jobs.set(String(id), 'Complete');
    // Time for the first segment (pages 1-2) only: it runs out once its changes went out.
    let remaining = 60_000;
    const short = new ScanJobWatcher({
      scanJobs: list,
      store,
      emitter: {
        description: 'test',
        emit: async (details) => {
          const failures = await emitter.emit(details);
          remaining = 0;
          return failures;
        },
      },
      segmentPages: 2,
    });
    const cut = await short.run(testCall({ remainingMs: () => remaining }));
    // Job 1 was complete already: 2, 3 and 4 changed on pages 1-2.
    expect(cut).toMatchObject({ complete: false, pages: 2, changes: 3, emitted: 3 });
    list.served.length = 0;
    expect(await watcher().run(testCall())).toMatchObject({ complete: true, emitted: 8 });
    // From its cursor round the list: pages 3 to 6, then 1 and 2.
    expect(list.served).toEqual([3, 4, 5, 6, 1, 2]);
    expect(ids(emitter.sent)).toEqual(
      Array.from({ length: 11 }, (_, i) => `${i + 2}:Complete`).sort(),
    );
  });

  it('records what went out when some changes are refused, throws, and retries only the rest', async () => {
    await watcher().run(testCall());
    for (const id of ['1', '2', '3']) list.jobs.set(id, 'Stop');
    emitter.refuse = (detail) => detail.instanceNo === '2';
    await expect(watcher().run(testCall())).rejects.toThrow(WatchRunError);
    expect(ids(emitter.sent)).toEqual(['1:Stop', '3:Stop']);
    emitter.refuse = () => false;
    expect(await watcher().run(testCall())).toMatchObject({ changes: 1, emitted: 1 });
    expect(ids(emitter.sent)).toEqual(['1:Stop', '2:Stop', '3:Stop']);
  });

  it('records nothing of a chunk whose emitter throws; the next run announces it', async () => {
    await watcher().run(testCall());
    list.jobs.set('2', 'Complete');
    emitter.throwError = true;
    await expect(watcher().run(testCall())).rejects.toThrow('emitter down');
    emitter.throwError = false;
    await watcher().run(testCall());
    expect(ids(emitter.sent)).toEqual(['2:Complete']);
  });

  it('repeats a change, with the same changeId, after a run failed between announcing and recording', async () => {
    await watcher().run(testCall());
    list.jobs.set('2', 'Complete');
    list.jobs.set('3', 'Progress');
    const failingRecord: WatcherStateStore = {
      ...store,
      record: async () => {
        throw new Error('state store down');
      },
    };
    await expect(watcher({ store: failingRecord }).run(testCall())).rejects.toThrow(
      'state store down',
    );
    expect(ids(emitter.sent)).toEqual(['2:Complete', '3:Progress']);
    await watcher().run(testCall());
    // At least once: both went out twice, under the same ids, and nothing else did.
    expect(ids(emitter.sent)).toEqual(['2:Complete', '2:Complete', '3:Progress', '3:Progress']);
    expect(await watcher().run(testCall())).toMatchObject({ changes: 0 });
  });

  it('skips the changes it cannot claim', async () => {
    await watcher().run(testCall());
    list.jobs.set('1', 'Gone');
    list.jobs.set('2', 'Complete');
    const busy: WatcherStateStore = {
      ...store,
      claim: async (changes) => changes.filter((c) => c.job.instanceNo !== '1'),
    };
    expect(await watcher({ store: busy }).run(testCall())).toMatchObject({
      changes: 2,
      emitted: 1,
      skipped: 1,
    });
    expect(ids(emitter.sent)).toEqual(['2:Complete']);
  });
});
