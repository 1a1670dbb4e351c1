/**
 * Every `npx serverless invoke local` line of the README, run as printed against a running
 * emulator (on a free port, given through EMULATOR_PORT, and the watcher's local state in a
 * folder of the test's own under .local/, so that a developer's own is left alone).
 */
import { exec } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bareEnvironment } from '../helpers/bare-environment.ts';
import { emulatorForSuite } from '../helpers/emulator.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const run = promisify(exec);

async function invokeLocalLines(): Promise<string[]> {
  const readme = await readFile(path.join(ROOT, 'README.md'), 'utf8');
  const lines = readme.match(/npx serverless invoke local [^`\n#|]+/g) ?? [];
  return [...new Set(lines.map((line) => line.trim()))];
}

/**
 * The result `invoke local` prints after the function's log lines: indented JSON whose opening
 * brace stands alone on its line.
 */
function printedResult(stdout: string): Record<string, unknown> {
  const start = stdout.lastIndexOf('\n{\n');
  return JSON.parse(stdout.slice(start + 1)) as Record<string, unknown>;
}

describe('the README', async () => {
  const lines = await invokeLocalLines();
  const emulator = emulatorForSuite();
  // The watcher's view in a folder of .local/ of the run's own, named relative to the project as
  // a developer would name it: the project's, not the build folder's (invoke local runs the
  // handler from .esbuild/invoke-local/.build).
  let stateDir: string;
  let relativeState: string;
  /** Each line's run, once: the watcher's case and the test of where its view is kept share it. */
  const runs = new Map<string, Promise<{ stdout: string; stderr: string }>>();
  const runOnce = (line: string) => {
    if (!runs.has(line)) {
      runs.set(
        line,
        run(line, {
          cwd: ROOT,
          env: {
            ...bareEnvironment(),
            EMULATOR_PORT: String(emulator.port),
            WATCHER_STATE_FILE: relativeState,
          },
        }),
      );
    }
    return runs.get(line)!;
  };

  beforeAll(async () => {
    await mkdir(path.join(ROOT, '.local'), { recursive: true });
    stateDir = await mkdtemp(path.join(ROOT, '.local', 'invoke-local-'));
    relativeState = path.join('.local', path.basename(stateDir), 'watcher-state.json');
  });
  afterAll(async () => {
    await Promise.allSettled(runs.values());
    await rm(stateDir, { recursive: true, force: true });
  });

  it('prints invoke local lines', () => {
    expect(lines.length).toBeGreaterThan(0);
  });

  it.each(lines)('%s: answers with the emulator running', { timeout: 120_000 }, async (line) => {
    const { stdout } = await runOnce(line);
    const result = printedResult(stdout);
    if ('statusCode' in result) expect(result.statusCode, stdout).toBe(200);
    else expect(result, stdout).toHaveProperty('baselined');
  });

  it.each(lines)('%s: logs no warning, nothing being wrong', { timeout: 120_000 }, async (line) => {
    const { stdout, stderr } = await runOnce(line);
    const warnings = `${stdout}\n${stderr}`
      .split('\n')
      .filter((each) => /"level":"(warn|error)"|\bwarn(ing)?\b/i.test(each));
    expect(warnings).toEqual([]);
  });

  it("keeps the watcher's view where the README says, not under the build folder", {
    timeout: 120_000,
  }, async () => {
    const line = lines.find((each) => each.includes('-f watchScanJobs'));
    expect(line).toBeDefined();
    const readme = await readFile(path.join(ROOT, 'README.md'), 'utf8');
    expect(readme).toContain('.local/watcher-state.json');
    // The relative WATCHER_STATE_FILE the line ran with names a file of the project.
    await runOnce(line!);
    const state = JSON.parse(await readFile(path.join(ROOT, relativeState), 'utf8'));
    expect(state).toBeTypeOf('object');
  });
});
