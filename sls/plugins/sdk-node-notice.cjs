'use strict';
// On Node 20, the AWS SDK's seven-line NodeVersionSupportWarning becomes one line of ours (a
// plugin, listed first in serverless.yml): the SDK's own switch is set as the CLI starts, for
// this process and every worker and process it starts (serverless offline's function workers
// included), and the line is said once, by the commands that load the SDK (deploy, info,
// remove, ...); `package` loads none and says nothing. The notice concerns the machine that
// runs the command, never the deployed functions (scripts/local/sdk-node-notice.ts).
const { lib } = require('../lib.cjs');

const { quietSdkNodeNotice } = lib('sdkNodeNotice');

/** The commands whose process, or whose functions' workers, load the AWS SDK. */
const SDK_COMMANDS = new Set([
  'deploy',
  'info',
  'remove',
  'rollback',
  'logs',
  'metrics',
  'invoke',
  'offline',
]);

class SdkNodeNotice {
  constructor(serverless, _options = {}, utils = {}) {
    const command = serverless.processedInput?.commands?.[0];
    const notice = quietSdkNodeNotice('serverless');
    this.hooks = {};
    if (notice && SDK_COMMANDS.has(command)) {
      this.hooks.initialize = () => {
        if (typeof utils.log?.notice === 'function') utils.log.notice(notice);
        else process.stderr.write(`${notice}\n`);
      };
    }
  }
}

module.exports = SdkNodeNotice;
