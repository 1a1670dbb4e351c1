/**
 * Swagger UI's files (swagger-ui-dist), as GET /docs/{asset} serves them: gzipped bytes with
 * their Content-Type. Tests and local runs read them here from node_modules. In a bundle, the
 * package step (sls/plugins/esbuild-plugins.ts) puts the gzipped files in place of this module.
 * So the docs function carries them in its own zip, and no other function does.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { gzipSync } from 'node:zlib';

export interface RendererFile {
  readonly contentType: string;
  readonly gzipped: Buffer;
}

/**
 * The renderer's files the page loads, by name, with their Content-Type. The package step
 * (sls/plugins/esbuild-plugins.ts) reads them and puts them gzipped in the docs bundle.
 * @public
 */
export const RENDERER_FILES: Readonly<Record<string, string>> = {
  'swagger-ui-bundle.js': 'application/javascript; charset=utf-8',
  'swagger-ui.css': 'text/css; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

const read = new Map<string, RendererFile>();

/** One of Swagger UI's files, or undefined when it is not one of RENDERER_FILES. */
export function rendererFile(name: string): RendererFile | undefined {
  // Its own names only: `constructor` or `__proto__` are no file (as in the bundle's copy).
  const contentType = Object.hasOwn(RENDERER_FILES, name) ? RENDERER_FILES[name] : undefined;
  if (!contentType) return undefined;
  let file = read.get(name);
  if (!file) {
    const dir = path.dirname(
      createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'),
    );
    file = { contentType, gzipped: gzipSync(readFileSync(path.join(dir, name))) };
    read.set(name, file);
  }
  return file;
}
