/** The secrets extension's layer and port (sls/resolvers/secrets-extension.cjs). */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

type Resolver = (input: {
  resolveVariable: (name: string) => Promise<unknown>;
}) => Promise<unknown>;
const extension = createRequire(import.meta.url)(
  '../../../../sls/resolvers/secrets-extension.cjs',
) as {
  layers: Resolver;
  port: Resolver;
};
const LAYER =
  'arn:aws:lambda:us-east-1:177933569100:layer:AWS-Parameters-and-Secrets-Lambda-Extension-Arm64:12';
const stage = (layer: string) => ({
  resolveVariable: async (name: string) => ({ 'param:secretsExtensionLayerArn': layer })[name],
});

describe('the secrets extension', () => {
  it('is attached, on its default port, when the stage names its layer', async () => {
    expect(await extension.layers(stage(` ${LAYER} `))).toEqual([LAYER]);
    expect(await extension.port(stage(LAYER))).toBe('2773');
  });

  it('is absent otherwise', async () => {
    expect(await extension.layers(stage(''))).toEqual([]);
    expect(await extension.port(stage(''))).toBe('');
  });
});
