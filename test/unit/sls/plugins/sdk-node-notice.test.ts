/**
 * The serverless CLI's part of the SDK's Node version notice (sls/plugins/sdk-node-notice.cjs):
 * the switch is set whatever the command, and the line said only by the commands that load the
 * SDK.
 */
import { createRequire } from 'node:module';
import { afterEach, describe, expect, it } from 'vitest';

const SWITCH = 'AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED';
const SdkNodeNotice = createRequire(import.meta.url)(
  '../../../../sls/plugins/sdk-node-notice.cjs',
) as new (
  serverless: unknown,
  options: unknown,
  utils: unknown,
) => { hooks: Record<string, () => void> };

const before = process.env[SWITCH];
afterEach(() => {
  if (before === undefined) delete process.env[SWITCH];
  else process.env[SWITCH] = before;
});

function run(command: string): string[] {
  const said: string[] = [];
  const plugin = new SdkNodeNotice(
    { processedInput: { commands: [command] } },
    {},
    { log: { notice: (line: string) => said.push(line) } },
  );
  for (const hook of Object.values(plugin.hooks)) hook();
  return said;
}

describe.runIf(Number(process.versions.node.split('.')[0]) < 22)('on Node 20', () => {
  it('deploy says it in one line, and turns the SDK notice off for the process', () => {
    delete process.env[SWITCH];
    const said = run('deploy');
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(/^Node v20\.\S+ runs serverless; .* need Node 22/);
    expect(process.env[SWITCH]).toBe('true');
  });

  it('package loads no SDK: it says nothing, and still turns the notice off', () => {
    delete process.env[SWITCH];
    expect(run('package')).toEqual([]);
    expect(process.env[SWITCH]).toBe('true');
  });

  it('a command started with the switch set (npm start, npm test) says nothing', () => {
    process.env[SWITCH] = 'true';
    expect(run('offline')).toEqual([]);
  });
});
