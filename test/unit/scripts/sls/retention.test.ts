/** What a stage keeps when its stack goes (scripts/sls/retention.cjs), on a template's resources. */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

const { applyRetention } = createRequire(import.meta.url)(
  '../../../../scripts/sls/retention.cjs',
) as {
  applyRetention: (
    resources: Record<string, Record<string, unknown>>,
    settings: { deletionPolicy?: unknown; pointInTimeRecovery?: unknown },
  ) => void;
};

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
  it('keeps every table, queue, bucket and log group, and recovers every table, where the stage says so', () => {
    const resources = template();
    applyRetention(resources, { deletionPolicy: 'Retain', pointInTimeRecovery: true });
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

  it('deletes them where the stage says so (the default)', () => {
    const resources = template();
    applyRetention(resources, {});
    expect(resources.Queue).toMatchObject({
      DeletionPolicy: 'Delete',
      UpdateReplacePolicy: 'Delete',
    });
    expect(resources.Ledger.Properties).toMatchObject({
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: false },
    });
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
