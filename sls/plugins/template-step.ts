// A serverless plugin that changes the packaged template once every resource is in it (after
// serverless merges the stack's own resources): `apply(resources, settings)`, with the stage's
// settings, which `settingsOf` takes from serverless.yml's `custom`. A thrown error stops the
// package with its message, as serverless's own.
import type { Custom, Plugin, Resources, Serverless } from '../serverless.ts';

export function templateStep<Settings>(
  settingsOf: (custom: Custom) => Settings,
  apply: (resources: Resources, settings: Settings) => void,
): new (
  serverless: Serverless,
) => Plugin {
  return class TemplateStep implements Plugin {
    readonly serverless: Serverless;
    readonly hooks: Plugin['hooks'];

    constructor(serverless: Serverless) {
      this.serverless = serverless;
      this.hooks = {
        'after:aws:package:finalize:mergeCustomProviderResources': () => this.apply(),
      };
    }

    apply(): void {
      const custom = this.serverless.service.custom ?? {};
      try {
        apply(
          this.serverless.service.provider.compiledCloudFormationTemplate.Resources,
          settingsOf(custom),
        );
      } catch (error) {
        throw new this.serverless.classes.Error((error as Error).message);
      }
    }
  };
}
