import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../../lib/core/config.ts';
import { createLogger } from '../../../../lib/core/log.ts';
import { createRuntime } from '../../../../lib/runtime.ts';
import { usageGateOf } from '../../../../lib/usage/setup.ts';

const DEPLOYED = {
  AWS_LAMBDA_FUNCTION_NAME: 'platform-gateway-dev-listJobs',
  SECRETS_SOURCE: 'file',
  SECRETS_FILE: 'emulator/demo-secret.json',
};

describe('usageGateOf', () => {
  it('needs the usage table when deployed, naming the variable', () => {
    const runtime = createRuntime(loadConfig(DEPLOYED), { log: createLogger({}, () => {}) });
    expect(() => usageGateOf(runtime)).toThrow(
      'Invalid configuration: USAGE_TABLE: required when deployed',
    );
    const withTable = createRuntime(loadConfig({ ...DEPLOYED, USAGE_TABLE: 'usage' }));
    expect(usageGateOf(withTable)).toBe(usageGateOf(withTable));
  });

  it('counts in memory locally without a table, and says so once, at debug level only', () => {
    const lines: string[] = [];
    const log = createLogger({}, (l) => lines.push(l), 'debug');
    const runtime = createRuntime(loadConfig({}), { log });
    usageGateOf(runtime);
    usageGateOf(runtime);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('"level":"debug"');
    expect(lines[0]).toContain('no USAGE_TABLE: usage plans are counted in this process only');
    // At the default level (info), as `serverless invoke local` runs: nothing.
    const quiet: string[] = [];
    usageGateOf(createRuntime(loadConfig({}), { log: createLogger({}, (l) => quiet.push(l)) }));
    expect(quiet).toEqual([]);
  });
});
