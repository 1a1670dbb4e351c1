// The AWS Parameters and Secrets Lambda Extension, attached when the stage names its layer
// (params: secretsExtensionLayerArn), as variable resolvers for serverless.yml:
// `${file(./sls/variables.cjs):secretsExtension.layers}`.
import type { ResolverArgs, ResolveVariable } from '../serverless.ts';

/** The extension's layer, when the stage names one ('' otherwise). */
const layerOf = async (resolveVariable: ResolveVariable): Promise<string> =>
  String((await resolveVariable('param:secretsExtensionLayerArn')) ?? '').trim();

/** The functions' layers: the extension's, or none. */
export const layers = async ({ resolveVariable }: ResolverArgs): Promise<string[]> => {
  const layer = await layerOf(resolveVariable);
  return layer ? [layer] : [];
};

/** The extension's local port (its default), for the functions to read the secret from. */
export const port = async ({ resolveVariable }: ResolverArgs): Promise<string> =>
  (await layerOf(resolveVariable)) ? '2773' : '';
