'use strict';
// The AWS Parameters and Secrets Lambda Extension, attached when the stage names its layer
// (params: secretsExtensionLayerArn), as variable resolvers for serverless.yml:
// `${file(./sls/resolvers/secrets-extension.cjs):layers}`.

/** The extension's layer, when the stage names one ('' otherwise). */
const layerOf = async (resolveVariable) =>
  String((await resolveVariable('param:secretsExtensionLayerArn')) ?? '').trim();

/** The functions' layers: the extension's, or none. */
const layers = async ({ resolveVariable }) => {
  const layer = await layerOf(resolveVariable);
  return layer ? [layer] : [];
};

/** The extension's local port (its default), for the functions to read the secret from. */
const port = async ({ resolveVariable }) => ((await layerOf(resolveVariable)) ? '2773' : '');

module.exports = { layers, port };
