/** Lambda Managed Instances where a stage names a capacity provider (sls/plugins/managed-instances.ts). */
import { describe, expect, it } from 'vitest';
import { applyManagedInstances } from '../../../../sls/plugins/managed-instances.ts';

/** A template whose every resource has its properties. */
type Resources = Record<string, { Type: string; Properties: Record<string, unknown> }>;

const ARN = 'arn:aws:lambda:eu-west-1:123456789012:capacity-provider:gateway';
const template = (): Resources => ({
  ListJobsLambdaFunction: { Type: 'AWS::Lambda::Function', Properties: { Handler: 'x' } },
  ConsumeInvocationsLambdaFunction: { Type: 'AWS::Lambda::Function', Properties: {} },
  UsageTable: { Type: 'AWS::DynamoDB::Table', Properties: {} },
});

describe('Lambda Managed Instances', () => {
  it('leaves every function on standard Lambda when the stage names no capacity provider', () => {
    const resources = template();
    applyManagedInstances(resources, { capacityProviderArn: '', perEnvironmentMaxConcurrency: '' });
    expect(resources).toEqual(template());
  });

  it("runs every function on the stage's capacity provider, with its concurrency when given", () => {
    const resources = template();
    applyManagedInstances(resources, {
      capacityProviderArn: ARN,
      perEnvironmentMaxConcurrency: '32',
    });
    for (const id of ['ListJobsLambdaFunction', 'ConsumeInvocationsLambdaFunction'] as const) {
      expect(resources[id]!.Properties.CapacityProviderConfig).toEqual({
        LambdaManagedInstancesCapacityProviderConfig: {
          CapacityProviderArn: ARN,
          PerExecutionEnvironmentMaxConcurrency: 32,
        },
      });
    }
    expect(resources.UsageTable!.Properties).toEqual({});
    const defaults = template();
    applyManagedInstances(defaults, { capacityProviderArn: ARN, perEnvironmentMaxConcurrency: '' });
    expect(defaults.ListJobsLambdaFunction!.Properties.CapacityProviderConfig).toEqual({
      LambdaManagedInstancesCapacityProviderConfig: { CapacityProviderArn: ARN },
    });
  });

  it.each([
    [{ capacityProviderArn: 'arn:aws:lambda:eu-west-1:123456789012:function:gateway' }, 'ARN'],
    [{ capacityProviderArn: ARN, perEnvironmentMaxConcurrency: '0' }, '1 to 1600'],
    [{ capacityProviderArn: ARN, perEnvironmentMaxConcurrency: '64.5' }, '1 to 1600'],
  ])('refuses a setting CloudFormation would refuse: %j', (settings, message) => {
    expect(() => applyManagedInstances(template(), settings)).toThrow(message);
  });
});
