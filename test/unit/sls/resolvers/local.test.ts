/** serverless.yml's local helpers (sls/resolvers/local.ts): build folders and local paths. */
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import * as local from '../../../../sls/resolvers/local.ts';

const ROOT = path.resolve(import.meta.dirname, '../../../..');
const SAVED = process.env.WATCHER_STATE_FILE;

afterEach(() => {
  if (SAVED === undefined) delete process.env.WATCHER_STATE_FILE;
  else process.env.WATCHER_STATE_FILE = SAVED;
});

describe('the local helpers of serverless.yml', () => {
  it("gives each command a build folder of its own, never npm start's", () => {
    expect(local.workFolderOf(['package', '--stage'])).toBe(path.join('.esbuild', 'package'));
    expect(local.workFolderOf(['deploy', undefined])).toBe(path.join('.esbuild', 'deploy'));
    expect(local.workFolderOf(['invoke', 'local'])).toBe(path.join('.esbuild', 'invoke-local'));
    expect(local.workFolderOf([undefined, undefined])).toBe(path.join('.esbuild', 'cli'));
    for (const argv of [['package'], ['deploy'], ['invoke', 'local']]) {
      // npm start builds in .esbuild/start-<port>, the e2e suites in .esbuild/e2e-<port>.
      expect(local.workFolderOf(argv)).not.toMatch(/^\.esbuild[\\/]?$|start-|e2e-/);
    }
  });

  it("keeps the watcher's local view in the project's .local/, as an absolute path", () => {
    delete process.env.WATCHER_STATE_FILE;
    expect(local.watcherStateFile()).toBe(path.join(ROOT, '.local/watcher-state.json'));
    process.env.WATCHER_STATE_FILE = 'elsewhere/state.json';
    expect(path.isAbsolute(local.watcherStateFile())).toBe(true);
  });
});
