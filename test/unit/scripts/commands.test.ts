/**
 * The scripts with no arguments to speak of refuse any they are given, with their usage line
 * (exit 2), before they do anything: `npm run openapi`, `check:links`, `rehearse`, and the
 * package check (one folder at most). `npm run bench` and `node bench/ab.ts` likewise, through
 * bench/args.ts. (The others: each script's own test.)
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../../..');

describe.each([
  ['scripts/openapi.ts', ['extra'], 'usage: npm run openapi (it takes no argument)'],
  ['scripts/check-links.ts', ['--all'], 'usage: npm run check:links (it takes no argument)'],
  ['scripts/rehearse.ts', ['--stage=prod'], 'usage: npm run rehearse (it takes no argument)'],
  [
    'scripts/check-package.ts',
    ['.serverless', 'extra'],
    'usage: node scripts/check-package.ts [package folder, .serverless/ by default]',
  ],
  ['bench/run.ts', ['--only', 'nothing'], expect.stringMatching(/^usage: npm run bench -- /)],
  ['bench/ab.ts', ['a.cjs'], expect.stringMatching(/^usage: node bench\/ab\.ts /)],
])('%s', (script, args, usage) => {
  it(`refuses ${args.join(' ')} with its usage line, and exits 2`, {
    timeout: 30_000,
  }, async () => {
    const failure = (await promisify(execFile)(process.execPath, [script, ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME },
    }).catch((error: unknown) => error)) as { code: number; stdout: string; stderr: string };
    expect(failure.code).toBe(2);
    const lines = failure.stderr.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toEqual(usage);
  });
});
