/**
 * serverless-esbuild for the commands that build, and only for them (sls/plugins/esbuild.ts):
 * a command that builds gets the plugin itself, with its hooks; one that reads, describes or
 * removes a stage gets no hook and never loads it, and `skipEsbuild` is declared either way.
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import Esbuild, { builds } from '../../../../sls/plugins/esbuild.ts';
import type { Plugin } from '../../../../sls/serverless.ts';
import { serverlessOf } from '../../../helpers/serverless.ts';

const require = createRequire(import.meta.url);

function serverlessFor(commands: string[]) {
  const declared: unknown[] = [];
  const serverless = {
    ...serverlessOf({ commands }),
    // serverless-esbuild reads the service's folder when it is constructed.
    config: { serviceDir: '/service' },
    configSchemaHandler: {
      defineFunctionProperties: (provider: string, schema: object) =>
        void declared.push([provider, schema]),
    },
  };
  return { serverless, declared };
}

const log = Object.assign(() => undefined, { verbose: () => undefined });

describe('the esbuild plugin, by command', () => {
  it.each([
    ['print'],
    ['info'],
    ['remove'],
    ['logs'],
    ['metrics'],
    ['rollback'],
    ['deploy', 'list'],
    ['invoke'],
  ])('%s builds nothing: no hook, skipEsbuild declared', (...commands) => {
    expect(builds(commands)).toBe(false);
    const { serverless, declared } = serverlessFor(commands);
    const plugin = new Esbuild(serverless, {}, { log });
    expect(plugin.plugin).toBeUndefined();
    expect(plugin.hooks).toEqual({});
    expect(declared).toEqual([['aws', { properties: { skipEsbuild: { type: 'boolean' } } }]]);
  });

  it.each([
    ['package'],
    ['deploy'],
    ['deploy', 'function'],
    ['invoke', 'local'],
    ['offline'],
    ['offline', 'start'],
    ['run'],
    ['a-command-of-another-plugin'],
  ])('%s gets the hooks of serverless-esbuild itself', (...commands) => {
    expect(builds(commands)).toBe(true);
    const { serverless, declared } = serverlessFor(commands);
    const plugin = new Esbuild(serverless, {}, { log });
    expect(plugin.plugin).toBeInstanceOf(require('serverless-esbuild'));
    expect(plugin.hooks).toBe((plugin.plugin as Plugin).hooks);
    expect(Object.keys(plugin.hooks)).toEqual(
      expect.arrayContaining([
        'before:package:createDeploymentArtifacts',
        'before:offline:start:init',
        'before:invoke:local:invoke',
      ]),
    );
    // Declared once, by serverless-esbuild (a second declaration would be refused).
    expect(declared).toHaveLength(1);
  });
});
