'use strict';
// A serverless plugin that changes the packaged template once every resource is in it (after
// serverless merges the stack's own resources): `apply(resources, settings)`, with the stage's
// `custom.<settingsKey>`. A thrown error stops the package with its message, as serverless's own.

function templateStep(settingsKey, apply) {
  return class TemplateStep {
    constructor(serverless) {
      this.serverless = serverless;
      this.hooks = {
        'after:aws:package:finalize:mergeCustomProviderResources': () => this.apply(),
      };
    }

    apply() {
      const custom = this.serverless.service.custom ?? {};
      try {
        apply(
          this.serverless.service.provider.compiledCloudFormationTemplate.Resources,
          custom[settingsKey] ?? {},
        );
      } catch (error) {
        throw new this.serverless.classes.Error(error.message);
      }
    }
  };
}

module.exports = { templateStep };
