/**
 * A clone of the project to run the docs' commands in, as a reader runs them from a clone with
 * `npm ci` done: a temporary folder with a copy of the project's files (4-5 MB: the sources,
 * serverless.yml, the docs) and a link to its node_modules, so that what the commands write there
 * (secret.json, secrets/, .serverless/, .esbuild/) never mixes with a run of the project itself
 * (npm start, the tests).
 */
import { cp, mkdtemp, readdir, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PROJECT_ROOT } from '../local/paths.ts';

/** What a run writes, or the project's own state: not copied. */
const LEFT_OUT = new Set(['.git', '.serverless', '.esbuild', '.local', 'secret.json', 'secrets']);

export interface Clone {
  readonly dir: string;
  remove(): Promise<void>;
}

export async function linkedClone(prefix: string): Promise<Clone> {
  const dir = await mkdtemp(path.join(tmpdir(), `${prefix}-`));
  for (const entry of await readdir(PROJECT_ROOT)) {
    if (LEFT_OUT.has(entry)) continue;
    const from = path.join(PROJECT_ROOT, entry);
    const to = path.join(dir, entry);
    if (entry === 'node_modules') await symlink(from, to);
    else await cp(from, to, { recursive: true });
  }
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}
