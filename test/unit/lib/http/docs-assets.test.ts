/**
 * Swagger UI's files as GET /docs/{asset} serves them (lib/http/docs-assets.ts): the files of
 * swagger-ui-dist byte for byte, gzipped, with their Content-Type, read once; nothing that is not
 * one of them. Also as the docs bundle carries them: the module built with the package's esbuild
 * plugins (sls/plugins/esbuild-plugins.ts) answers as the module does here.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import * as esbuild from 'esbuild';
import { describe, expect, it } from 'vitest';
import { RENDERER_FILES, rendererFile } from '../../../../lib/http/docs-assets.ts';
import { DOCS_ASSET_NAMES, docsPageHtml } from '../../../../lib/http/docs-page.ts';
import plugins from '../../../../sls/plugins/esbuild-plugins.ts';

const require = createRequire(import.meta.url);
const ROOT = path.resolve(import.meta.dirname, '../../../..');
const DIST = path.dirname(require.resolve('swagger-ui-dist/package.json'));

/** What the browser gets of a file: its bytes, unzipped. */
const served = (name: string) => {
  const file = rendererFile(name);
  if (!file) throw new Error(`no file ${name}`);
  return { contentType: file.contentType, bytes: gunzipSync(file.gzipped) };
};

const NOT_FILES = [
  'init.js',
  'index.html',
  'swagger-ui-bundle.js.map',
  '../package.json',
  'package.json',
  '',
  'constructor',
  'toString',
  '__proto__',
];

describe("Swagger UI's files", () => {
  it.each(Object.keys(RENDERER_FILES))('serves %s as swagger-ui-dist has it', (name) => {
    expect(served(name).bytes.equals(readFileSync(path.join(DIST, name)))).toBe(true);
  });

  it('says what each file is', () => {
    expect(served('swagger-ui-bundle.js').contentType).toBe(
      'application/javascript; charset=utf-8',
    );
    expect(served('swagger-ui.css').contentType).toBe('text/css; charset=utf-8');
    const icon = served('favicon-32x32.png');
    expect(icon.contentType).toBe('image/png');
    expect(icon.bytes.subarray(0, 8).equals(Buffer.from('89504e470d0a1a0a', 'hex'))).toBe(true);
  });

  it('are the files the page loads besides its own script, each served by the route', () => {
    const loaded = [...docsPageHtml().matchAll(/(?:href|src)="docs\/([^"]+)"/g)].map(
      ([, name]) => name,
    );
    expect(Object.keys(RENDERER_FILES).sort()).toEqual(
      loaded.filter((name) => name !== 'init.js').sort(),
    );
    for (const name of Object.keys(RENDERER_FILES)) {
      expect(DOCS_ASSET_NAMES as readonly string[]).toContain(name);
    }
  });

  it('are read once, then kept', () => {
    expect(rendererFile('swagger-ui.css')).toBe(rendererFile('swagger-ui.css'));
  });

  it.each(NOT_FILES)('has no file %j: nothing else of the package is served', (name) => {
    expect(rendererFile(name)).toBeUndefined();
  });
});

describe('the files as the docs bundle carries them', () => {
  it('answer as the module does, built with the package plugins', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'docs-assets-'));
    const entry = path.join(dir, 'entry.cjs');
    const outfile = path.join(dir, 'out.cjs');
    writeFileSync(
      entry,
      `module.exports = require(${JSON.stringify(path.join(ROOT, 'lib/http/docs-assets.ts'))});`,
    );
    await esbuild.build({
      entryPoints: [entry],
      outfile,
      bundle: true,
      platform: 'node',
      target: 'node24',
      format: 'cjs',
      nodePaths: [path.join(ROOT, 'node_modules')],
      plugins,
      logLevel: 'error',
    });
    // The bundle carries the files, and reads nothing of node_modules.
    expect(readFileSync(outfile, 'utf8')).not.toContain('swagger-ui-dist/package.json');
    const bundled = require(outfile) as typeof import('../../../../lib/http/docs-assets.ts');
    expect(bundled.RENDERER_FILES).toEqual(RENDERER_FILES);
    for (const name of Object.keys(RENDERER_FILES)) {
      const file = bundled.rendererFile(name);
      expect(file?.contentType).toBe(RENDERER_FILES[name]);
      expect(gunzipSync(file?.gzipped ?? Buffer.alloc(0)).equals(served(name).bytes), name).toBe(
        true,
      );
    }
    for (const name of NOT_FILES) expect(bundled.rendererFile(name), name).toBeUndefined();
  });
});
