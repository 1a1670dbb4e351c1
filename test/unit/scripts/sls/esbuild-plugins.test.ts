/**
 * The bundles' esbuild plugins (scripts/sls/esbuild-plugins.cjs), on real esbuild builds: the
 * compressed HTTP parser is byte for byte undici's, and a left-out part of undici says why
 * when reached.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as esbuild from 'esbuild';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
const ROOT = path.resolve(import.meta.dirname, '../../../..');
const plugins = require('../../../../scripts/sls/esbuild-plugins.cjs') as esbuild.Plugin[];

/**
 * Bundles `source` as the functions are bundled, and loads the result. The source sits at
 * `where` under a node_modules folder of its own, so that it may require as undici's modules do.
 */
async function bundle(source: string, where = '.'): Promise<{ exports: unknown; bytes: number }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'plugins-'));
  const entryDir = path.join(dir, where);
  mkdirSync(entryDir, { recursive: true });
  const entry = path.join(entryDir, 'entry.cjs');
  const outfile = path.join(dir, 'out.cjs');
  writeFileSync(entry, source);
  const result = await esbuild.build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    minify: true,
    platform: 'node',
    target: 'node22',
    format: 'cjs',
    nodePaths: [path.join(ROOT, 'node_modules')],
    plugins,
    metafile: true,
    logLevel: 'error',
  });
  const bytes = Object.values(result.metafile.outputs)[0]?.bytes ?? 0;
  return { exports: require(outfile), bytes };
}

describe('the bundles’ esbuild plugins', () => {
  it('carry undici’s HTTP parser compressed, and hand undici the same bytes', async () => {
    const original = require('undici/lib/llhttp/llhttp_simd-wasm.js') as Buffer;
    const { exports, bytes } = await bundle(
      "module.exports = require('undici/lib/llhttp/llhttp_simd-wasm.js');",
    );
    const packed = exports as Buffer;
    expect(Buffer.compare(packed, original)).toBe(0);
    // Compiles as undici compiles it (WebAssembly is a global the project's types leave out).
    const wasm = (globalThis as unknown as { WebAssembly: { compile(b: Buffer): Promise<object> } })
      .WebAssembly;
    expect(await wasm.compile(packed)).toBeDefined();
    // Well under the base64 text (4/3 of the bytes) undici carries it as.
    expect(bytes).toBeLessThan(original.length / 2);
  });

  it('replace a left-out part of undici with a module that says why, where it is called', async () => {
    // As undici's client requires it.
    const { exports } = await bundle(
      "module.exports = require('./client-h2.js');",
      'node_modules/undici/lib/dispatcher',
    );
    expect(exports).toBeTypeOf('function');
    expect(() => (exports as () => void)()).toThrow(/HTTP\/2 was left out/);
  });
});
