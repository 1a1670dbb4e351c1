// What a stage keeps when its stack is deleted or a resource replaced (a plugin, listed in
// serverless.yml), applied once every resource is in the template, the framework's own (the
// functions' log groups, the access log's) and sls/resources/*.yml's alike, so that a table,
// queue, bucket or log group added later is covered without a line of its own:
// - DeletionPolicy and UpdateReplacePolicy of every table, queue, bucket and log group: Retain,
//   unless the stage is declared disposable (the `disposable` param: only `dev` by default, the
//   stage a plain `serverless deploy` makes), then Delete. They hold the once-only memory (the
//   delivery ledger), the watcher's view, what callers spent of their plans, deliveries accepted
//   with a 202 and not yet run or parked (the queues, their large bodies), and the logs that say
//   who did what. A stage's name decides nothing: `production` or `staging` is kept as `prod`;
// - point-in-time recovery of every DynamoDB table: on, unless the stage is disposable.
// `dataDeletionPolicy` and `pointInTimeRecovery` override either, one stage at a time.

import type { Custom, Resources } from '../serverless.ts';
import { templateStep } from './template-step.ts';

type RetentionSettings = NonNullable<Custom['dataRetention']>;

/** The resource types that hold data a stage may have to keep. */
const KEPT_TYPES: ReadonlySet<string> = new Set([
  'AWS::DynamoDB::Table',
  'AWS::SQS::Queue',
  'AWS::S3::Bucket',
  'AWS::Logs::LogGroup',
]);
const POLICIES = new Set(['Retain', 'Delete']);
/** The framework's bucket of deployment artifacts: zips it uploads again, not data. */
const ARTIFACTS_BUCKET = 'ServerlessDeploymentBucket';

/** Whether the stage is declared disposable (`disposable: true`); refuses anything else. */
function isDisposable(disposable: unknown): boolean {
  const declared = String(disposable ?? 'false').trim();
  if (declared !== 'true' && declared !== 'false') {
    throw new Error('The disposable parameter must be true or false.');
  }
  return declared === 'true';
}

/**
 * The stage's policies: its overrides, else what its declaration implies (kept and recovered
 * unless disposable). Throws on a value CloudFormation would refuse (Snapshot does not apply to
 * these types).
 */
function retentionOf({ disposable, deletionPolicy, pointInTimeRecovery }: RetentionSettings): {
  disposable: boolean;
  policy: string;
  recovery: boolean;
} {
  const thrownAway = isDisposable(disposable);
  const policy = String(deletionPolicy ?? '').trim() || (thrownAway ? 'Delete' : 'Retain');
  if (!POLICIES.has(policy)) {
    throw new Error(`The dataDeletionPolicy parameter must be Retain or Delete, not "${policy}".`);
  }
  const recovery = String(pointInTimeRecovery ?? '').trim() || String(!thrownAway);
  if (recovery !== 'true' && recovery !== 'false') {
    throw new Error('The pointInTimeRecovery parameter must be true or false.');
  }
  return { disposable: thrownAway, policy, recovery: recovery === 'true' };
}

/** Sets the stage's policies on a template's resources. */
export function applyRetention(resources: Resources, settings: RetentionSettings): void {
  const { policy, recovery } = retentionOf(settings);
  for (const [logicalId, resource] of Object.entries(resources)) {
    if (!KEPT_TYPES.has(resource.Type) || logicalId === ARTIFACTS_BUCKET) continue;
    resource.DeletionPolicy = policy;
    resource.UpdateReplacePolicy = policy;
    if (resource.Type === 'AWS::DynamoDB::Table') {
      resource.Properties = {
        ...resource.Properties,
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: recovery },
      };
    }
  }
}

export default templateStep((custom) => custom.dataRetention ?? {}, applyRetention);
