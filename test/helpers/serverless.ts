/**
 * The framework's object for a plugin's test, with every part sls/serverless.ts names: the
 * service's custom, provider, functions and template as given, its errors plain Errors, and no
 * other plugin loaded.
 */
import type { Custom, Provider, Resources, Serverless, Service } from '../../sls/serverless.ts';

export function serverlessOf({
  custom,
  provider = {},
  resources = {},
  functions,
  commands = [],
}: {
  readonly custom?: Custom;
  readonly provider?: Partial<Provider>;
  readonly resources?: Resources;
  readonly functions?: Service['functions'];
  readonly commands?: readonly string[];
} = {}): Serverless {
  return {
    service: {
      service: 'platform-gateway',
      custom,
      functions,
      provider: {
        name: 'aws',
        compiledCloudFormationTemplate: { Resources: resources },
        ...provider,
      },
    },
    processedInput: { commands },
    classes: { Error },
    pluginManager: { plugins: [] },
    configSchemaHandler: { defineFunctionProperties: () => undefined },
    getProvider: () => ({
      getStage: () => provider.stage ?? 'dev',
      getRegion: () => provider.region ?? 'us-east-1',
    }),
    addServiceOutputSection: () => undefined,
  };
}
