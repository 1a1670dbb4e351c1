'use strict';
// Read by serverless.yml while it resolves variables (the working directory is the project).
const path = require('node:path');

// Local defaults apply to `serverless offline ...` and `serverless invoke local`, even without
// IS_OFFLINE=true.
module.exports.isLocal = () => {
  const [command, subcommand] = process.argv.slice(2);
  return String(command === 'offline' || (command === 'invoke' && subcommand === 'local'));
};

// SECRETS_FILE as an absolute path: `invoke local` runs handlers from the build folder, where a
// relative path (or the code's default, emulator/demo-secret.json) would not resolve.
module.exports.secretsFile = () =>
  path.resolve(process.env.SECRETS_FILE || path.join(__dirname, '../../emulator/demo-secret.json'));
