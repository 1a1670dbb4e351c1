/**
 * The watcher's last view in DynamoDB: one item per job, {instanceNo, status, updatedAt},
 * partition key instanceNo. The SDK is imported on first use, so that a function that keeps
 * its state elsewhere never evaluates it.
 *
 * Overlapping runs (a schedule fires while the last run is still going, or EventBridge
 * delivers one schedule twice) must not both announce a change. Announcing comes before
 * recording, so recording alone cannot stop a second run; a claim written before announcing
 * does. Every write is conditional:
 *   claim:   SET claimToken, claimExpiresAt  IF status is still the previous one AND no live
 *            claim exists (none, or one whose run is past its deadline)
 *   record:  SET status, updatedAt REMOVE the claim  IF claimToken is this run's
 *   release: REMOVE the claim  IF claimToken is this run's
 * Of two runs, one wins each claim and the other skips that change. A run that dies holding a
 * claim leaves it to lapse at its invocation's deadline; the next run then takes it over and
 * announces the change again, with the same changeId.
 */
import type { AttributeValue, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { lazyDynamoDb } from '../core/dynamo-db.js';
import type { ObservedJob, RecordedJob, StatusChange } from './changes.js';
import { chunksOf } from './changes.js';
import type { RunLease, WatcherStateStore } from './state-store.js';

interface DynamoDbStateStoreOptions {
  readonly tableName: string;
  /** For tests; by default one client per container, configured from the environment. */
  readonly client?: DynamoDBClient;
  readonly now?: () => number;
}

type Item = Record<string, AttributeValue>;

/** Writes in flight at once: DynamoDB has no conditional batch write. */
const WRITE_CONCURRENCY = 10;

export function dynamoDbStateStore(options: DynamoDbStateStoreOptions): WatcherStateStore {
  const { tableName } = options;
  const now = options.now ?? (() => Date.now());
  const connect = lazyDynamoDb(options.client);

  /** An UpdateItem that may lose its condition; returns whether it was applied. */
  async function update(key: string, expression: UpdateExpression): Promise<boolean> {
    const { sdk, client } = await connect();
    try {
      await client.send(
        new sdk.UpdateItemCommand({
          TableName: tableName,
          Key: { instanceNo: { S: key } },
          UpdateExpression: expression.update,
          ConditionExpression: expression.condition,
          ExpressionAttributeNames: expression.names,
          ExpressionAttributeValues: expression.values,
        }),
      );
      return true;
    } catch (error) {
      if ((error as Error).name === 'ConditionalCheckFailedException') return false;
      throw error;
    }
  }

  async function eachLimited<T, R>(items: readonly T[], work: (item: T) => Promise<R>) {
    const results: R[] = [];
    for (const chunk of chunksOf(items, WRITE_CONCURRENCY)) {
      results.push(...(await Promise.all(chunk.map(work))));
    }
    return results;
  }

  return {
    description: `DynamoDB table ${tableName}`,

    async load() {
      const { sdk, client } = await connect();
      const jobs = new Map<string, RecordedJob>();
      let startKey: Item | undefined;
      do {
        const page = await client.send(
          new sdk.ScanCommand({
            TableName: tableName,
            ConsistentRead: true,
            ExclusiveStartKey: startKey,
          }),
        );
        for (const item of page.Items ?? []) addRecorded(jobs, item);
        startKey = page.LastEvaluatedKey;
      } while (startKey);
      return jobs;
    },

    async baseline(observed: readonly ObservedJob[], at: string) {
      // Only where no item exists: a baseline never overwrites what another run recorded.
      await eachLimited(observed, (job) =>
        update(job.instanceNo, {
          update: 'SET #status = :status, updatedAt = :at',
          condition: 'attribute_not_exists(instanceNo)',
          names: { '#status': 'status' },
          values: { ':status': { S: job.status }, ':at': { S: at } },
        }),
      );
    },

    async claim(changes: readonly StatusChange[], lease: RunLease) {
      const won = await eachLimited(changes, (change) =>
        update(change.job.instanceNo, claimExpression(change, lease, now())),
      );
      return changes.filter((_change, index) => won[index]);
    },

    async record(changes: readonly StatusChange[], lease: RunLease, at: string) {
      // A lost condition means this run's claim lapsed and another run took the change over;
      // that run records it.
      await eachLimited(changes, ({ job }) =>
        update(job.instanceNo, {
          update: 'SET #status = :status, updatedAt = :at REMOVE claimToken, claimExpiresAt',
          condition: 'claimToken = :token',
          names: { '#status': 'status' },
          values: { ':status': { S: job.status }, ':at': { S: at }, ':token': { S: lease.token } },
        }),
      );
    },

    async release(changes: readonly StatusChange[], lease: RunLease) {
      await eachLimited(changes, ({ job }) =>
        update(job.instanceNo, {
          update: 'REMOVE claimToken, claimExpiresAt',
          condition: 'claimToken = :token',
          values: { ':token': { S: lease.token } },
        }),
      );
    },
  };
}

interface UpdateExpression {
  readonly update: string;
  readonly condition: string;
  readonly names?: Record<string, string>;
  readonly values: Item;
}

function claimExpression(change: StatusChange, lease: RunLease, now: number): UpdateExpression {
  const unclaimed = '(attribute_not_exists(claimToken) OR claimExpiresAt < :now)';
  const values: Item = {
    ':token': { S: lease.token },
    ':expires': { N: String(lease.expiresAt) },
    ':now': { N: String(now) },
  };
  // `status` is a DynamoDB reserved word, hence #status.
  if (change.previousStatus === null) {
    return {
      update: 'SET claimToken = :token, claimExpiresAt = :expires',
      condition: `attribute_not_exists(#status) AND ${unclaimed}`,
      names: { '#status': 'status' },
      values,
    };
  }
  return {
    update: 'SET claimToken = :token, claimExpiresAt = :expires',
    condition: `#status = :previous AND ${unclaimed}`,
    names: { '#status': 'status' },
    values: { ...values, ':previous': { S: change.previousStatus } },
  };
}

/** An item with a status is a recorded job; one without is only a claim of a new job. */
function addRecorded(jobs: Map<string, RecordedJob>, item: Item): void {
  const instanceNo = item['instanceNo']?.S;
  const status = item['status']?.S;
  if (instanceNo === undefined || status === undefined) return;
  jobs.set(instanceNo, { status, updatedAt: item['updatedAt']?.S ?? '' });
}
