/** npm start's watch on its build folder (scripts/local/build-guard.ts). */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { watchBuildFolder } from '../../../../scripts/local/build-guard.ts';

describe('the build folder watch', () => {
  it('tells once when a build that existed is deleted', async () => {
    const folder = await mkdtemp(path.join(tmpdir(), 'build-guard-'));
    await mkdir(path.join(folder, '.build'));
    const gone = vi.fn();
    const stop = watchBuildFolder(folder, gone, 10);
    await rm(folder, { recursive: true, force: true });
    await vi.waitFor(() => expect(gone).toHaveBeenCalledTimes(1));
    stop();
  });

  it('says nothing of a build that never existed, nor once stopped', async () => {
    const folder = await mkdtemp(path.join(tmpdir(), 'build-guard-'));
    const gone = vi.fn();
    const stop = watchBuildFolder(folder, gone, 5);
    await new Promise((resolve) => setTimeout(resolve, 50));
    stop();
    await mkdir(path.join(folder, '.build'));
    await rm(folder, { recursive: true, force: true });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(gone).not.toHaveBeenCalled();
  });
});
