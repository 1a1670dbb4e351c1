/** The AWS SDK's Node version notice, once and in one line (scripts/local/sdk-node-notice.ts). */
import { describe, expect, it } from 'vitest';
import { quietSdkNodeNotice } from '../../../../scripts/local/sdk-node-notice.ts';

const SWITCH = 'AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED';

describe('quietSdkNodeNotice', () => {
  it('on Node 20, turns the SDK notice off and gives one line to say instead', () => {
    const env: NodeJS.ProcessEnv = {};
    const line = quietSdkNodeNotice('the tests', env, 'v20.20.2');
    expect(env[SWITCH]).toBe('true');
    expect(line).toBe(
      "Node v20.20.2 runs the tests; the AWS SDK's releases after January 2027 need Node 22 (deployed, the functions run Node 24).",
    );
    expect(line).not.toContain('\n');
  });

  it('says it once: a process started with the switch set says nothing', () => {
    const env: NodeJS.ProcessEnv = {};
    expect(quietSdkNodeNotice('npm start', env, 'v20.20.2')).toBeDefined();
    expect(quietSdkNodeNotice('serverless', env, 'v20.20.2')).toBeUndefined();
    expect(quietSdkNodeNotice('serverless', { [SWITCH]: 'false' }, 'v20.20.2')).toBeUndefined();
  });

  it('on Node 22 and later, there is nothing to say and nothing is turned off', () => {
    for (const version of ['v22.13.0', 'v24.21.0']) {
      const env: NodeJS.ProcessEnv = {};
      expect(quietSdkNodeNotice('the tests', env, version)).toBeUndefined();
      expect(env).toEqual({});
    }
  });
});
