/**
 * Which secret holds what (sls/resolvers/secrets.ts): the code's capabilities, each with its
 * setting in serverless.yml's environment and its line in docs/secret.md, and each function's
 * secrets by the stage's layout.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SECRET_CAPABILITIES, secretIdSetting } from '../../../../lib/core/secret-capabilities.ts';
import { CAPABILITY_FIELDS } from '../../../../lib/secrets/schema.ts';
import * as secrets from '../../../../sls/resolvers/secrets.ts';

const ROOT = path.resolve(import.meta.dirname, '../../../..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');
const SAVED = { ...process.env };
afterEach(() => {
  process.env = { ...SAVED };
});

const stage = (variables: Record<string, unknown>) => async (name: string) =>
  ({ 'self:service': 'platform-gateway', 'sls:stage': 'dev', ...variables })[name];

describe('the capabilities of the secret', () => {
  it('are the code’s, each with the fields the schema gives it', () => {
    expect(secrets.CAPABILITIES).toEqual(SECRET_CAPABILITIES);
    expect(Object.keys(CAPABILITY_FIELDS).sort()).toEqual([...SECRET_CAPABILITIES].sort());
    for (const capability of SECRET_CAPABILITIES) {
      expect(secrets.settingOf(capability)).toBe(secretIdSetting(capability));
    }
  });

  it.each(SECRET_CAPABILITIES)(
    '%s: its setting in the functions’ environment, its line in docs/secret.md',
    (capability) => {
      const setting = secretIdSetting(capability);
      expect(read('serverless.yml')).toContain(
        `    ${setting}: \${file(./sls/variables.cjs):secrets.environment.${setting}}\n`,
      );
      const row = read('docs/secret.md')
        .split('\n')
        .find((line) => line.startsWith(`| ${capability} | `));
      expect(row, `docs/secret.md: the row of ${capability}`).toBeDefined();
      const fields = row!
        .split('|')[2]!
        .match(/`[^`]+`/g)!
        .map((field) => field.slice(1, -1));
      expect(fields).toEqual(CAPABILITY_FIELDS[capability]);
      expect(read('docs/secret.md')).toContain(setting);
    },
  );
});

describe('the functions’ environment', () => {
  it('names one secret per capability by default, and SECRET_ID none', async () => {
    for (const capability of SECRET_CAPABILITIES) delete process.env[secretIdSetting(capability)];
    delete process.env.SECRET_ID;
    const env = await secrets.environment({ resolveVariable: stage({}) });
    expect(env).toEqual({
      SECRET_ID: '',
      SIGNING_SECRET_ID: 'platform-gateway/dev/signing',
      CATALOGUE_SECRET_ID: 'platform-gateway/dev/catalogue',
      EXECUTION_SECRET_ID: 'platform-gateway/dev/execution',
      WEBHOOKS_SECRET_ID: 'platform-gateway/dev/webhooks',
      CALLERS_SECRET_ID: 'platform-gateway/dev/callers',
    });
  });

  it('keeps them in SECRET_ID where the stage chooses one secret, but one named on its own', async () => {
    delete process.env.SECRET_ID;
    process.env.WEBHOOKS_SECRET_ID = 'team/webhooks';
    const env = await secrets.environment({
      resolveVariable: stage({ 'param:secretLayout': 'single' }),
    });
    expect(env.SECRET_ID).toBe('platform-gateway/dev/platform');
    expect(env.WEBHOOKS_SECRET_ID).toBe('team/webhooks');
    expect(env.SIGNING_SECRET_ID).toBe('');
  });
});
