/** What a stage keeps when its stack goes (sls/plugins/retention.ts), on a template's resources. */
import { describe, expect, it } from 'vitest';
import { applyRetention } from '../../../../sls/plugins/retention.ts';

const template = () => ({
  Ledger: { Type: 'AWS::DynamoDB::Table', Properties: { BillingMode: 'PAY_PER_REQUEST' } },
  Usage: { Type: 'AWS::DynamoDB::Table', Properties: {} },
  Queue: { Type: 'AWS::SQS::Queue', Properties: {} },
  Bodies: { Type: 'AWS::S3::Bucket', Properties: {} },
  ServerlessDeploymentBucket: { Type: 'AWS::S3::Bucket', Properties: {} },
  ListJobsLogGroup: { Type: 'AWS::Logs::LogGroup', Properties: {} },
  ListJobsLambdaFunction: { Type: 'AWS::Lambda::Function', Properties: {} },
});

describe('applyRetention', () => {
  it('keeps every table, queue, bucket and log group, and recovers every table, unless the stage is declared disposable', () => {
    const resources = template();
    applyRetention(resources, { disposable: 'false', deletionPolicy: '', pointInTimeRecovery: '' });
    for (const id of ['Ledger', 'Usage', 'Queue', 'Bodies', 'ListJobsLogGroup'] as const) {
      expect(resources[id], id).toMatchObject({
        DeletionPolicy: 'Retain',
        UpdateReplacePolicy: 'Retain',
      });
    }
    expect(resources.Ledger.Properties).toEqual({
      BillingMode: 'PAY_PER_REQUEST',
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
    });
    expect(resources.Usage.Properties).toEqual({
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
    });
    // Not data: functions, and the framework's bucket of zips.
    expect(resources.ListJobsLambdaFunction).not.toHaveProperty('DeletionPolicy');
    expect(resources.ServerlessDeploymentBucket).not.toHaveProperty('DeletionPolicy');
  });

  it('keeps them when nothing is declared: a stage is disposable only by its own word', () => {
    const resources = template();
    applyRetention(resources, {});
    expect(resources.Queue).toMatchObject({ DeletionPolicy: 'Retain' });
  });

  it('deletes them, with no recovery, where the stage is declared disposable', () => {
    const resources = template();
    applyRetention(resources, { disposable: true });
    expect(resources.Queue).toMatchObject({
      DeletionPolicy: 'Delete',
      UpdateReplacePolicy: 'Delete',
    });
    expect(resources.Ledger.Properties).toMatchObject({
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: false },
    });
  });

  it('lets a stage override what its declaration implies, one policy at a time', () => {
    const resources = template();
    applyRetention(resources, { disposable: 'true', deletionPolicy: 'Retain' });
    expect(resources.Queue).toMatchObject({ DeletionPolicy: 'Retain' });
    expect(resources.Ledger.Properties).toMatchObject({
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: false },
    });
    expect(() => applyRetention(template(), { disposable: 'yes' })).toThrow(
      /disposable parameter must be true or false/,
    );
  });

  it('refuses a policy CloudFormation would not take for these types, naming the parameter', () => {
    expect(() => applyRetention(template(), { deletionPolicy: 'Snapshot' })).toThrow(
      /dataDeletionPolicy parameter must be Retain or Delete/,
    );
    expect(() => applyRetention(template(), { pointInTimeRecovery: 'yes' })).toThrow(
      /pointInTimeRecovery parameter must be true or false/,
    );
  });
});
