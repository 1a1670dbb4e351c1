/**
 * The functions as they deploy, for the benchmarks: `serverless package` once per run (unless
 * the caller reuses .serverless/), and a packaged function's bundle unzipped.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
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
  // The bundle, not the hand-off's upload written beside it (`<bundle>.hand-off.cjs`).
  return execFileSync('find', [dir, '-name', '*.cjs', '!', '-name', '*.hand-off.cjs'], {
    encoding: 'utf8',
  })
    .trim()
    .split('\n')[0]!;
}

/**
 * What a function loads of its zip, in bytes: its bundle and, when it calls out, undici's HTTP
 * parser written beside it (`<bundle>.llhttp.wasm`, sls/plugins/esbuild-plugins.ts). The
 * source map is not loaded unless source maps are turned on.
 */
export function loadedBytes(entry: string): number {
  const parser = entry.replace(/\.cjs$/, '.llhttp.wasm');
  return statSync(entry).size + (existsSync(parser) ? statSync(parser).size : 0);
}

/**
 * The environment the packaged template sets for a function, where it is a plain value (a
 * variable that names a resource is left out): NODE_OPTIONS, LOG_LEVEL, SECRETS_SOURCE, ...,
 * so that the benchmarks run each function as it deploys.
 */
export function deployedEnvironment(out: string, name: string): Record<string, string> {
  const template = JSON.parse(
    readFileSync(path.join(out, 'cloudformation-template-update-stack.json'), 'utf8'),
  ) as { Resources: Record<string, { Properties?: { Environment?: { Variables?: object } } }> };
  const logicalId = `${name.replace(/^./, (c) => c.toUpperCase())}LambdaFunction`;
  const variables = template.Resources[logicalId]?.Properties?.Environment?.Variables ?? {};
  return Object.fromEntries(
    Object.entries(variables).filter(
      (entry): entry is [string, string] => typeof entry[1] === 'string' && entry[1] !== '',
    ),
  );
}
