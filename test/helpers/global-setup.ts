/**
 * Runs once in vitest's main process, before any test file: the AWS SDK's Node version notice is
 * said once, in one line, instead of seven lines in every test file that loads the SDK (its
 * switch reaches every worker, and every process a test starts, through the environment).
 */
import { quietSdkNodeNotice } from '../../scripts/local/sdk-node-notice.ts';

export default function setup(): void {
  const notice = quietSdkNodeNotice('the tests');
  if (notice) console.log(notice);
}
