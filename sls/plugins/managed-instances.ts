// Lambda Managed Instances, where a stage asks for them (a plugin, listed in serverless.yml): with
// the `capacityProviderArn` param set, every function of the stack runs on that capacity
// provider (made outside this stack: its VPC, instance types and scaling are the account's),
// many requests at once in one process (docs/deploy.md "Lambda Managed Instances"). The
// `perEnvironmentMaxConcurrency` param caps the requests one execution environment serves at
// once; empty, Lambda's default (64 a vCPU for Node.js). Empty `capacityProviderArn` (the
// default): standard Lambda, one request a process.

import type { Custom, Resources } from '../serverless.ts';
import { templateStep } from './template-step.ts';

const ARN = /^arn:aws[a-zA-Z-]*:lambda:[a-z0-9-]+:\d{12}:capacity-provider:[A-Za-z0-9_-]+$/;

/** Sets every function's capacity provider; throws on a value CloudFormation would refuse. */
export function applyManagedInstances(
  resources: Resources,
  { capacityProviderArn, perEnvironmentMaxConcurrency }: NonNullable<Custom['managedInstances']>,
): void {
  const arn = String(capacityProviderArn ?? '').trim();
  if (arn === '') return;
  if (!ARN.test(arn)) {
    throw new Error(
      `The capacityProviderArn parameter is not a capacity provider's ARN: "${arn}".`,
    );
  }
  const concurrency = String(perEnvironmentMaxConcurrency ?? '').trim();
  const perEnvironment = concurrency === '' ? undefined : Number(concurrency);
  if (
    perEnvironment !== undefined &&
    !(Number.isInteger(perEnvironment) && perEnvironment >= 1 && perEnvironment <= 1600)
  ) {
    throw new Error(
      'The perEnvironmentMaxConcurrency parameter must be a whole number from 1 to 1600.',
    );
  }
  for (const resource of Object.values(resources)) {
    if (resource.Type !== 'AWS::Lambda::Function') continue;
    resource.Properties ??= {};
    resource.Properties.CapacityProviderConfig = {
      LambdaManagedInstancesCapacityProviderConfig: {
        CapacityProviderArn: arn,
        ...(perEnvironment === undefined
          ? {}
          : { PerExecutionEnvironmentMaxConcurrency: perEnvironment }),
      },
    };
  }
}

export default templateStep((custom) => custom.managedInstances ?? {}, applyManagedInstances);
