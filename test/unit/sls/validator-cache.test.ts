/**
 * sls/validator-cache.ts: osls's generated validator compiled with V8's cache, kept once it has
 * run. Each case is a Node process of its own, as each start of the CLI is: it loads a module
 * named as osls names its validator, the way osls loads it, and runs it.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const CACHE_MODULE = path.resolve(import.meta.dirname, '../../../sls/validator-cache.ts');
/** A stand-in for the validator: a function compiled only when it first runs, and a require. */
const VALIDATOR = [
  '"use strict";',
  "const { join } = require('node:path');",
  'module.exports = function validate(value) { return join("checked", String(value * 2)); };',
].join('\n');

let dir: string;
let cache: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'validator-cache-'));
  cache = path.join(dir, 'cache');
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Loads `name` with `source` as osls loads its validator, with the cache on; prints validate(21). */
async function loadAndRun(name: string, source = VALIDATOR): Promise<string> {
  const script = `
    const Module = require('node:module');
    require(${JSON.stringify(CACHE_MODULE)}).cacheValidator(${JSON.stringify(cache)});
    const filename = ${JSON.stringify(path.join(dir, name))};
    const loaded = new Module(filename);
    loaded.filename = filename;
    loaded.paths = Module._nodeModulePaths(${JSON.stringify(dir)});
    loaded._compile(${JSON.stringify(source)}, filename);
    console.log(loaded.exports(21));
  `;
  const { stdout } = await run(process.execPath, ['-e', script]);
  return stdout.trim();
}

const cacheFile = (source = VALIDATOR) =>
  path.join(cache, `${createHash('sha256').update(source).digest('hex')}.bin`);

describe("osls's validator, compiled with V8's cache", () => {
  const name = '[generated-ajv-validate]0123abcd.js';

  it('runs as osls loads it, and leaves its cache, named by its source, once it has run', async () => {
    expect(await loadAndRun(name)).toBe(path.join('checked', '42'));
    expect((await stat(cacheFile())).size).toBeGreaterThan(0);
  });

  it('takes the cache on the next start, as it is (V8 accepts it: nothing is written again)', async () => {
    const before = await readFile(cacheFile());
    const written = (await stat(cacheFile())).mtimeMs;
    expect(await loadAndRun(name)).toBe(path.join('checked', '42'));
    expect((await stat(cacheFile())).mtimeMs).toBe(written);
    expect(await readFile(cacheFile())).toEqual(before);
  });

  it('compiles from the source when V8 refuses the cache, and writes it again', async () => {
    await writeFile(cacheFile(), 'not a cache V8 made');
    expect(await loadAndRun(name)).toBe(path.join('checked', '42'));
    expect((await readFile(cacheFile())).toString()).not.toBe('not a cache V8 made');
  });

  it('leaves every other module to Node', async () => {
    const other = VALIDATOR.replace('* 2', '* 3');
    expect(await loadAndRun('validate.js', other)).toBe(path.join('checked', '63'));
    expect(await readdir(cache)).not.toContain(path.basename(cacheFile(other)));
  });
});
