/**
 * Tells when a local build folder disappears under a running serverless offline (someone ran
 * `rm -rf .esbuild`, or an older checkout's `serverless package`, which deleted all of
 * `.esbuild/`): every function would then fail with "Cannot find module". `npm start` rebuilds
 * when told.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';

/**
 * Calls `onGone` once, the first time `folder/.build` (serverless-esbuild's build) is found
 * missing after it existed; checks every `intervalMs`. Returns the function that stops watching.
 */
export function watchBuildFolder(
  folder: string,
  onGone: () => void,
  intervalMs = 1000,
): () => void {
  const build = path.join(folder, '.build');
  let seen = existsSync(build);
  const timer = setInterval(() => {
    const exists = existsSync(build);
    if (exists) {
      seen = true;
      return;
    }
    if (!seen) return;
    clearInterval(timer);
    onGone();
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
