'use strict';
// What a stage keeps when its stack is deleted or a resource replaced (a plugin, listed in
// serverless.yml), applied once every resource is in the template, the framework's own (the
// functions' log groups, the access log's) and sls/resources/*.yml's alike, so that a table,
// queue, bucket or log group added later is covered without a line of its own:
// - DeletionPolicy and UpdateReplacePolicy of every table, queue, bucket and log group: the
//   stage's `dataDeletionPolicy` param (Retain in prod, Delete elsewhere). They hold the
//   once-only memory (the delivery ledger), the watcher's view, deliveries accepted with a 202
//   and not yet run or parked (the queues, their large bodies), and the logs that say who did
//   what;
// - point-in-time recovery of every DynamoDB table: the `pointInTimeRecovery` param (on in prod).

const { templateStep } = require('./template-step.cjs');

/** The resource types that hold data a stage may have to keep. */
const KEPT_TYPES = new Set([
  'AWS::DynamoDB::Table',
  'AWS::SQS::Queue',
  'AWS::S3::Bucket',
  'AWS::Logs::LogGroup',
]);
const POLICIES = new Set(['Retain', 'Delete']);
/** The framework's bucket of deployment artifacts: zips it uploads again, not data. */
const ARTIFACTS_BUCKET = 'ServerlessDeploymentBucket';

/**
 * Sets the policies on a template's resources; throws on a value CloudFormation would refuse
 * (Snapshot does not apply to these types).
 */
function applyRetention(resources, { deletionPolicy, pointInTimeRecovery }) {
  const policy = String(deletionPolicy ?? 'Delete').trim();
  if (!POLICIES.has(policy)) {
    throw new Error(`The dataDeletionPolicy parameter must be Retain or Delete, not "${policy}".`);
  }
  const recovery = String(pointInTimeRecovery ?? 'false').trim();
  if (recovery !== 'true' && recovery !== 'false') {
    throw new Error('The pointInTimeRecovery parameter must be true or false.');
  }
  for (const [logicalId, resource] of Object.entries(resources)) {
    if (!KEPT_TYPES.has(resource.Type) || logicalId === ARTIFACTS_BUCKET) continue;
    resource.DeletionPolicy = policy;
    resource.UpdateReplacePolicy = policy;
    if (resource.Type === 'AWS::DynamoDB::Table') {
      resource.Properties = {
        ...resource.Properties,
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: recovery === 'true' },
      };
    }
  }
}

module.exports = templateStep('dataRetention', applyRetention);
module.exports.applyRetention = applyRetention;
module.exports.KEPT_TYPES = KEPT_TYPES;
