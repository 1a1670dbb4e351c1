/**
 * No DependsOn beside a reference that already orders two resources (sls/plugins/depends-on.ts):
 * cfn-lint's W3005, which a CloudFormation that validates strictly (moto's) refuses.
 */
import { describe, expect, it } from 'vitest';
import { dropEnforcedDependsOn } from '../../../../sls/plugins/depends-on.ts';
import type { Resources } from '../../../../sls/serverless.ts';

describe('dropEnforcedDependsOn', () => {
  it("drops a function's DependsOn on its role beside Role: GetAtt, and keeps the log group's", () => {
    const resources: Resources = {
      ListJobsLambdaFunction: {
        Type: 'AWS::Lambda::Function',
        DependsOn: ['ListJobsLogGroup', 'ListJobsRole'],
        Properties: { Role: { 'Fn::GetAtt': ['ListJobsRole', 'Arn'] } },
      },
    };
    dropEnforcedDependsOn(resources);
    expect(resources.ListJobsLambdaFunction!.DependsOn).toEqual(['ListJobsLogGroup']);
  });

  it('reads Ref, the dotted GetAtt and Fn::Sub (its own variables aside), and removes an empty DependsOn', () => {
    const resources: Resources = {
      Route: {
        Type: 'AWS::ApiGatewayV2::Route',
        DependsOn: 'Integration',
        Properties: { Target: { 'Fn::Join': ['/', ['integrations', { Ref: 'Integration' }]] } },
      },
      Stage: {
        Type: 'AWS::ApiGatewayV2::Stage',
        DependsOn: ['LogGroup', 'Api', 'Other', 'Local'],
        Properties: {
          AccessLogSettings: { DestinationArn: { 'Fn::GetAtt': 'LogGroup.Arn' } },
          // biome-ignore lint/suspicious/noTemplateCurlyInString: CloudFormation's Fn::Sub, as written
          Description: { 'Fn::Sub': ['${Api}-${Local}', { Local: 'x' }] },
        },
      },
    };
    dropEnforcedDependsOn(resources);
    expect(resources.Route).not.toHaveProperty('DependsOn');
    // Local is the Sub's own variable, not a resource: its DependsOn stays.
    expect(resources.Stage!.DependsOn).toEqual(['Other', 'Local']);
  });
});
