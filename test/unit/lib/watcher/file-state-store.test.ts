import { mkdir, mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { WatcherStateError } from '../../../../lib/core/errors.ts';
import { fileStateStore, writeFileAtomically } from '../../../../lib/watcher/file-state-store.ts';
import { change, observed } from './fixtures.ts';

const lease = { token: 't', expiresAt: Number.MAX_SAFE_INTEGER };

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'watcher-state-'));
});

describe('writeFileAtomically', () => {
  it('creates missing folders, replaces the file and leaves no temporary file', async () => {
    const file = path.join(dir, 'a', 'b', 'state.json');
    await writeFileAtomically(file, 'one');
    await writeFileAtomically(file, 'two');
    expect(await readFile(file, 'utf8')).toBe('two');
    expect(await readdir(path.dirname(file))).toEqual(['state.json']);
  });

  it('never lets a reader see part of a file while it is being replaced', async () => {
    const file = path.join(dir, 'state.json');
    const documents = ['a', 'b', 'c', 'd'].map((letter) =>
      JSON.stringify({ fill: letter.repeat(512 * 1024) }),
    );
    await writeFileAtomically(file, documents[0]!);
    let writing = true;
    const writer = (async () => {
      for (let round = 0; round < 20; round++) {
        await writeFileAtomically(file, documents[round % documents.length]!);
      }
      writing = false;
    })();
    let reads = 0;
    while (writing) {
      const text = await readFile(file, 'utf8');
      expect(documents).toContain(text);
      reads++;
    }
    await writer;
    expect(reads).toBeGreaterThan(0);
  });

  it('keeps the old file, and removes its temporary file, when the replacement fails', async () => {
    const file = path.join(dir, 'state.json');
    await mkdir(file); // a folder where the file should be: the rename fails
    await writeFile(path.join(file, 'keep'), 'old');
    await expect(writeFileAtomically(file, 'new')).rejects.toThrow();
    expect(await readdir(dir)).toEqual(['state.json']);
    expect(await readFile(path.join(file, 'keep'), 'utf8')).toBe('old');
  });
});

describe('fileStateStore', () => {
  it('starts empty when the file does not exist', async () => {
    const store = fileStateStore(path.join(dir, 'none.json'));
    expect(await store.load()).toEqual({ jobs: new Map(), cursor: undefined });
  });

  it('keeps the baseline and recorded changes across store instances (runs)', async () => {
    const file = path.join(dir, 'state.json');
    const first = fileStateStore(file);
    await first.load();
    await first.baseline([observed('1', 'Reservation'), observed('2', 'Progress')], 'T1');
    const second = fileStateStore(file);
    expect((await second.load()).jobs).toEqual(
      new Map([
        ['1', { status: 'Reservation', updatedAt: 'T1' }],
        ['2', { status: 'Progress', updatedAt: 'T1' }],
      ]),
    );
    const changes = [change('1', 'Reservation', 'Cancel'), change('3', null, 'Reservation')];
    expect(await second.claim(changes, lease)).toEqual(changes);
    await second.record(changes, lease, 'T2');
    const third = fileStateStore(file);
    const view = (await third.load()).jobs;
    expect(view.get('1')).toEqual({ status: 'Cancel', updatedAt: 'T2' });
    expect(view.get('2')).toEqual({ status: 'Progress', updatedAt: 'T1' });
    expect(view.get('3')).toEqual({ status: 'Reservation', updatedAt: 'T2' });
  });

  it('keeps a cursor until it is forgotten, and counts its reads and writes', async () => {
    const file = path.join(dir, 'state.json');
    const store = fileStateStore(file);
    await store.load();
    await store.saveCursor({ nextPage: 7, pageSize: 100, baselining: false });
    expect((await fileStateStore(file).load()).cursor).toEqual({
      nextPage: 7,
      pageSize: 100,
      baselining: false,
    });
    await store.saveCursor(undefined);
    expect((await fileStateStore(file).load()).cursor).toBeUndefined();
    // Nothing to forget: no write.
    await store.saveCursor(undefined);
    expect(store.calls).toEqual({ reads: 1, writes: 2 });
  });

  it('saves one view after the other, the last one whole, when records overlap', async () => {
    const file = path.join(dir, 'state.json');
    const store = fileStateStore(file);
    await store.load();
    const changes = Array.from({ length: 20 }, (_, i) => change(String(i), null, 'Progress'));
    await Promise.all(changes.map((c) => store.record([c], lease, 'T')));
    expect((await fileStateStore(file).load()).jobs.size).toBe(20);
  });

  it('does not grant a claim whose previous status is not the recorded one', async () => {
    const file = path.join(dir, 'state.json');
    await writeFile(
      file,
      JSON.stringify({ version: 1, jobs: { '1': { status: 'Complete', updatedAt: 'T' } } }),
    );
    const store = fileStateStore(file);
    await store.load();
    expect(await store.claim([change('1', 'Reservation', 'Progress')], lease)).toEqual([]);
  });

  it.each([
    ['not JSON', '{"version":'],
    ['another shape', '{"jobs":[]}'],
  ])('refuses a state file that is %s, naming the file', async (_case, text) => {
    const file = path.join(dir, 'state.json');
    await writeFile(file, text);
    const load = fileStateStore(file).load();
    await expect(load).rejects.toThrow(WatcherStateError);
    await expect(fileStateStore(file).load()).rejects.toThrow(file);
  });
});
