// Drops each DependsOn entry that a Ref, Fn::GetAtt or Fn::Sub in the same resource already
// enforces (a plugin, listed in serverless.yml). The framework adds such entries (each function's
// DependsOn on its role beside `Role: !GetAtt <role>.Arn`, each HTTP API route's on its
// integration, the stage's on the access log's group); CloudFormation orders a resource after
// every resource it references anyway, so they change nothing there. cfn-lint reports each as
// W3005, and a CloudFormation that validates with cfn-lint and refuses any finding (moto's, the
// stand-in `npm run rehearse` deploys to) refuses the template. Run just before the template is
// saved, after every other step (the framework's, this package's plugins), so that a resource
// any of them adds is covered too.
import type { Plugin, Resources, Serverless } from '../serverless.ts';

/** The logical ids a resource's own text references (Ref, Fn::GetAtt, Fn::Sub), DependsOn aside. */
function referencesOf(value: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(value)) {
    for (const item of value) referencesOf(item, found);
  } else if (value && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      if (key === 'Ref' && typeof inner === 'string') found.add(inner);
      else if (key === 'Fn::GetAtt') {
        const target: unknown = Array.isArray(inner) ? inner[0] : String(inner).split('.')[0];
        if (typeof target === 'string') found.add(target);
      } else if (key === 'Fn::Sub') {
        const text: unknown = Array.isArray(inner) ? inner[0] : inner;
        const names = Array.isArray(inner) && inner[1] ? Object.keys(inner[1]) : [];
        for (const match of String(text).matchAll(/\$\{([^!}][^}.]*)[^}]*\}/g)) {
          const name = match[1]!;
          if (!names.includes(name)) found.add(name);
        }
      }
      referencesOf(inner, found);
    }
  }
  return found;
}

/** Removes, in place, the DependsOn entries a resource's references already enforce. */
export function dropEnforcedDependsOn(resources: Resources): void {
  for (const resource of Object.values(resources)) {
    if (resource?.DependsOn === undefined) continue;
    const { DependsOn: dependsOn, ...rest } = resource;
    const referenced = referencesOf(rest);
    const kept = (Array.isArray(dependsOn) ? dependsOn : [dependsOn]).filter(
      (id) => !referenced.has(id),
    );
    if (kept.length === 0) delete resource.DependsOn;
    else resource.DependsOn = Array.isArray(dependsOn) ? kept : kept[0]!;
  }
}

export default class ObsoleteDependsOn implements Plugin {
  readonly serverless: Serverless;
  readonly hooks: Plugin['hooks'];

  constructor(serverless: Serverless) {
    this.serverless = serverless;
    this.hooks = {
      'before:aws:package:finalize:saveServiceState': () =>
        dropEnforcedDependsOn(
          this.serverless.service.provider.compiledCloudFormationTemplate.Resources,
        ),
    };
  }
}
