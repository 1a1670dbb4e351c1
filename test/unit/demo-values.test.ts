/**
 * No message of the deployed code names a value of the local demo: a job number of the
 * emulator, a credential of the demo secret, the emulator's API id. A caller of a real stage
 * would look for a job that is not theirs, or take a demo token for one that works. The strings
 * of lib/ and functions/ are read with their comments left out (a comment may name the demo).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEMO_API_ID } from '../../emulator/actions/demo-actions.ts';
import { demoScanJobs } from '../../emulator/index.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

/**
 * Every string of the demo secret that is a credential or an id: not its URLs (the emulator's)
 * nor its scopes (the service's own vocabulary).
 */
function demoSecretValues(): string[] {
  const secret = JSON.parse(readFileSync(path.join(ROOT, 'emulator/demo-secret.json'), 'utf8'));
  const values: string[] = [];
  const walk = (value: unknown, key: string) => {
    if (typeof value === 'string') {
      if (key !== 'url' && value.length >= 8) values.push(value);
    } else if (key === 'scopes') {
      return;
    } else if (value && typeof value === 'object') {
      for (const [name, child] of Object.entries(value)) walk(child, name);
    }
  };
  walk(secret, '');
  return values;
}

/** A source file without its comments: block comments, and line comments after code or alone. */
function withoutComments(source: string): string {
  return source
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/^\s*\/\/.*$/gm, '')
    .replace(/\s\/\/\s.*$/gm, '');
}

const sources = ['lib', 'functions'].flatMap((folder) =>
  (readdirSync(path.join(ROOT, folder), { recursive: true }) as string[])
    .filter((file) => file.endsWith('.ts'))
    .map((file) => path.posix.join(folder, file.split(path.sep).join('/'))),
);

describe('the demo values', () => {
  const demo = [...demoScanJobs().map((job) => job.instanceNo), ...demoSecretValues(), DEMO_API_ID];

  it('are known: job numbers, credentials, the API id', () => {
    expect(demo).toContain('2810017');
    expect(demo).toContain('demo-caller-token-for-local-use-only');
    expect(demo.length).toBeGreaterThan(30);
  });

  it.each(sources)('are named by no message of %s', (file) => {
    const code = withoutComments(readFileSync(path.join(ROOT, file), 'utf8'));
    expect(demo.filter((value) => code.includes(value))).toEqual([]);
  });
});
