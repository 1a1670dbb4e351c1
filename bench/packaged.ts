/**
 * The functions as they deploy, for the benchmarks: `serverless package` once per run (unless
 * the caller reuses .serverless/), and a packaged function's bundle unzipped.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');

let packaged = false;

/** `serverless package`, once per run (unless `reuse`, --skip-package): the packaged folder. */
export function packageArtifacts(reuse: boolean): string {
  const out = path.join(ROOT, '.serverless');
  if (!reuse && !packaged) {
    packaged = true;
    console.info('packaging (npx serverless package)...');
    execFileSync(path.join(ROOT, 'node_modules/.bin/serverless'), ['package'], {
      cwd: ROOT,
      stdio: 'ignore',
      // Packaging refuses a stage without its base URLs; the bundles do not depend on them.
      env: {
        SCAN_BASE_URL: 'https://wsc.apigw.example.com',
        OPENAPI_BASE_URL: 'https://openapi.apigw.example.com',
        ...process.env,
      },
    });
  }
  return out;
}

/** A packaged function's zip, unzipped into a fresh directory: its bundle's path. */
export function unpackedEntry(out: string, name: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), `${name}-`));
  execFileSync('unzip', ['-q', '-o', path.join(out, `${name}.zip`), '-d', dir]);
  return execFileSync('find', [dir, '-name', '*.cjs'], { encoding: 'utf8' }).trim().split('\n')[0]!;
}
