'use strict';
// Read by serverless.yml while it resolves variables (the working directory is the project).
const path = require('node:path');

const ROOT = path.join(__dirname, '../..');

/** The command and subcommand serverless was started with (`invoke local`, `package`, ...). */
const command = () => process.argv.slice(2, 4);

// Local defaults apply to `serverless offline ...` and `serverless invoke local`, even without
// IS_OFFLINE=true.
module.exports.isLocal = () => {
  const [first, second] = command();
  return String(first === 'offline' || (first === 'invoke' && second === 'local'));
};

// SECRETS_FILE as an absolute path: `invoke local` runs handlers from the build folder, where a
// relative path (or the code's default, emulator/demo-secret.json) would not resolve.
module.exports.secretsFile = () =>
  path.resolve(process.env.SECRETS_FILE || path.join(ROOT, 'emulator/demo-secret.json'));

// The watcher's local view, as an absolute path for the same reason: `.local/watcher-state.json`
// of the project (or WATCHER_STATE_FILE, relative to where the command runs), never under the
// build folder `invoke local` runs the handler from.
module.exports.watcherStateFile = () =>
  path.resolve(process.env.WATCHER_STATE_FILE || path.join(ROOT, '.local/watcher-state.json'));

/**
 * serverless-esbuild's work folder of a command run by hand: one per command, under .esbuild/
 * (`.esbuild/package`, `.esbuild/invoke-local`, ...). serverless-esbuild deletes its work folder
 * when a package or deploy ends: a folder of their own leaves `npm start`'s (`.esbuild/start-<port>`,
 * set through SLS_ESBUILD_WORK_FOLDER) and the e2e suites' alone.
 */
module.exports.workFolder = () => workFolderOf(command());

function workFolderOf([first, second]) {
  const words = [first, second].filter((word) => word && /^[a-z][a-z-]*$/.test(word));
  return path.join('.esbuild', words.length > 0 ? words.join('-') : 'cli');
}
module.exports.workFolderOf = workFolderOf;
