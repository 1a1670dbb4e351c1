/** The secrets extension's layer and port (sls/resolvers/secrets-extension.ts). */
import { describe, expect, it } from 'vitest';
import * as extension from '../../../../sls/resolvers/secrets-extension.ts';

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
