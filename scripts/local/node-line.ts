/**
 * The first line of a long-running command: the Node that runs it, and whether that is the
 * major the functions run on once deployed (serverless.yml's provider.runtime). Under npm it is
 * the project's own Node 24 (node_modules/.bin/node); a machine that npm installs no Node for
 * (macOS on Apple silicon) runs its own, which this line names.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from './paths.ts';

/** serverless.yml's provider.runtime, such as `nodejs24.x`. */
export function lambdaRuntime(
  yml: string = readFileSync(path.join(PROJECT_ROOT, 'serverless.yml'), 'utf8'),
): string {
  const runtime = /^ {2}runtime: (nodejs\d+\.x)$/m.exec(yml)?.[1];
  if (!runtime) throw new Error('serverless.yml names no provider.runtime');
  return runtime;
}

/** `Node v24.22.3 runs <what> (...)`: one line, and what to do when it is not the runtime's major. */
export function nodeLine(
  what: string,
  version: string = process.version,
  runtime: string = lambdaRuntime(),
): string {
  const major = runtime.replace(/^nodejs(\d+)\.x$/, '$1');
  return version.startsWith(`v${major}.`)
    ? `Node ${version} runs ${what} (the functions' runtime: ${runtime}).`
    : `Node ${version} runs ${what}, not Node ${major} as deployed (${runtime}): install Node ${major} (README, "Quickstart").`;
}
