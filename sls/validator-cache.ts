// osls checks serverless.yml with a validator it generates once (8 MB of code) and compiles at
// every start of the CLI. V8 compiles the validator's big function only when it first runs, so
// Node's compile cache, made before the code runs, never holds it: about 0.7 s of CPU at each start.
// Here V8's cache of the whole validator is written once it has run, and read on later starts.
// The cache is named by the source's digest, and V8 refuses a cache made by another V8.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import path from 'node:path';
import { Script } from 'node:vm';

/** How osls names the validator's module: a file name that starts with this. */
const GENERATED = '[generated-ajv-validate]';

/** The loader's method that compiles and runs a CommonJS module (osls calls it itself). */
type Compile = (this: Module, content: string, filename: string, ...rest: unknown[]) => unknown;
const loader = Module.prototype as unknown as { _compile: Compile };

/**
 * From now on, osls's validator is compiled with V8's cache in `dir`; with no cache there, or a
 * refused one, the cache is written as the process exits. Returns the function that stops it.
 */
export function cacheValidator(dir: string): () => void {
  const compile = loader._compile;
  loader._compile = function (content, filename, ...rest) {
    if (!path.basename(filename).startsWith(GENERATED)) {
      return compile.call(this, content, filename, ...rest);
    }
    const file = path.join(dir, `${createHash('sha256').update(content).digest('hex')}.bin`);
    let cachedData: Buffer | undefined;
    try {
      cachedData = readFileSync(file);
    } catch {}
    const wrapped = `(function (exports, require, module, __filename, __dirname) {${content}\n})`;
    const script = new Script(wrapped, { filename, cachedData });
    if (cachedData === undefined || script.cachedDataRejected) {
      process.once('exit', () => {
        try {
          mkdirSync(dir, { recursive: true });
          const partial = `${file}.${process.pid}`;
          writeFileSync(partial, script.createCachedData());
          renameSync(partial, file);
        } catch {}
      });
    }
    const run = script.runInThisContext() as (...args: unknown[]) => unknown;
    const exports = this.exports;
    return run.call(
      exports,
      exports,
      createRequire(filename),
      this,
      filename,
      path.dirname(filename),
    );
  };
  return () => {
    loader._compile = compile;
  };
}
