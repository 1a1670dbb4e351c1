// Read by serverless.yml while it resolves variables (the working directory is the project).
import path from 'node:path';

const ROOT = path.join(import.meta.dirname, '../..');

/** The command and subcommand serverless was started with (`invoke local`, `package`, ...). */
const command = (): string[] => process.argv.slice(2, 4);

// Local defaults apply to `serverless offline ...` and `serverless invoke local`, even without
// IS_OFFLINE=true.
export const isLocal = (): string => {
  const [first, second] = command();
  return String(first === 'offline' || (first === 'invoke' && second === 'local'));
};

// SECRETS_FILE as an absolute path: `invoke local` runs handlers from the build folder, where a
// relative path (or the code's default, emulator/demo-secret.json) would not resolve.
export const secretsFile = (): string =>
  path.resolve(process.env.SECRETS_FILE || path.join(ROOT, 'emulator/demo-secret.json'));

// The watcher's local view, as an absolute path for the same reason: `.local/watcher-state.json`
// of the project (or WATCHER_STATE_FILE, relative to where the command runs), never under the
// build folder `invoke local` runs the handler from.
export const watcherStateFile = (): string =>
  path.resolve(process.env.WATCHER_STATE_FILE || path.join(ROOT, '.local/watcher-state.json'));

/**
 * serverless-esbuild's work folder of a command run by hand: one per command, under .esbuild/
 * (`.esbuild/package`, `.esbuild/invoke-local`, ...). serverless-esbuild deletes its work folder
 * when a package or deploy ends: a folder of their own leaves `npm start`'s (`.esbuild/start-<port>`,
 * set through SLS_ESBUILD_WORK_FOLDER) and the e2e suites' alone.
 */
export const workFolder = (): string => workFolderOf(command());

export function workFolderOf([first, second]: readonly (string | undefined)[]): string {
  const words = [first, second].filter(
    (word): word is string => word !== undefined && /^[a-z][a-z-]*$/.test(word),
  );
  return path.join('.esbuild', words.length > 0 ? words.join('-') : 'cli');
}
