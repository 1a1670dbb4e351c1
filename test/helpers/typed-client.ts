/**
 * A typed client generated from the OpenAPI document, as a user of the service would make one:
 * openapi-typescript turns the document into types, openapi-fetch calls with them. The files
 * are written under the repository (so that `openapi-fetch` resolves from node_modules) in a
 * folder that git ignores, and compiled with tsc.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import openapiTS, { astToString } from 'openapi-typescript';
import { buildOpenApiDocument } from '../../lib/http/openapi.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

export interface GeneratedClient {
  readonly dir: string;
  /** Compiles these files (beside the generated types) with tsc; resolves with its output. */
  compile(files: Record<string, string>): Promise<{ ok: boolean; output: string }>;
  remove(): Promise<void>;
}

export async function generateTypedClient(): Promise<GeneratedClient> {
  await mkdir(path.join(ROOT, '.esbuild'), { recursive: true });
  const dir = await mkdtemp(path.join(ROOT, '.esbuild', 'typed-client-'));
  const document = JSON.parse(JSON.stringify(buildOpenApiDocument()));
  await writeFile(path.join(dir, 'api.d.ts'), astToString(await openapiTS(document)));
  return {
    dir,
    async compile(files) {
      for (const [name, text] of Object.entries(files)) {
        await writeFile(path.join(dir, name), text);
      }
      const args = [
        '--noEmit',
        '--strict',
        '--skipLibCheck',
        '--target',
        'es2022',
        '--module',
        'nodenext',
        '--moduleResolution',
        'nodenext',
        ...Object.keys(files).map((name) => path.join(dir, name)),
      ];
      try {
        const { stdout } = await run(path.join(ROOT, 'node_modules/.bin/tsc'), args, { cwd: ROOT });
        return { ok: true, output: stdout };
      } catch (error) {
        return { ok: false, output: String((error as { stdout?: string }).stdout ?? error) };
      }
    },
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}
