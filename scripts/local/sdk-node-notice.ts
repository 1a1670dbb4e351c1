/**
 * On Node 20, the AWS SDK for JavaScript v3 warns, in seven lines (`NodeVersionSupportWarning`,
 * through process.emitWarning), that its releases after the first week of January 2027 need
 * Node 22. It warns once per loaded copy of the SDK: once per process, and once more in every
 * worker thread and every test file's fresh module graph (npm test printed it 24 times). The
 * notice concerns the machine that runs the command, never the deployed functions (Lambda's
 * Node 24), so each command that starts many of them says it once, in one line, and sets the
 * SDK's own switch (`AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED`) for itself and every
 * process and worker it starts (serverless offline passes `AWS_*` variables to its workers).
 * Used by npm start (scripts/start.ts), npm test (test/helpers/global-setup.ts) and the
 * serverless CLI (sls/plugins/sdk-node-notice.cjs).
 */

const SDK_SWITCH = 'AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED';
/** The first Node major the SDK's later releases take. */
const SDK_NODE_MAJOR = 22;

/**
 * Turns the SDK's notice off in `env` and returns the one line to say instead (`runs`: what this
 * Node runs, `the local stack`); undefined when there is nothing to say (Node 22 or later, or the
 * switch already set by whoever started us, who said it).
 */
export function quietSdkNodeNotice(
  runs: string,
  env: NodeJS.ProcessEnv = process.env,
  version: string = process.version,
): string | undefined {
  const major = Number(version.replace(/^v/, '').split('.')[0]);
  if (major >= SDK_NODE_MAJOR || env[SDK_SWITCH] !== undefined) return undefined;
  env[SDK_SWITCH] = 'true';
  return `Node ${version} runs ${runs}; the AWS SDK's releases after January 2027 need Node ${SDK_NODE_MAJOR} (deployed, the functions run Node 24).`;
}
