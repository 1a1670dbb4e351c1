/**
 * The watcher's last view in DynamoDB: one item per job, {instanceNo, status, updatedAt},
 * partition key instanceNo, and one item `#cursor` {nextPage, pageSize, baselining} while a
 * pass that stopped short waits for the next to go on (no job id starts with `#`). The SDK is
 * imported on first use, so that a function that keeps its state elsewhere never evaluates it.
 *
 * What a pass costs, in calls (counted in `calls`): one Scan per MB of the table to load the
 * view (10,000 jobs took one call), two conditional writes per change, and on the first passes
 * one BatchWriteItem per 25 jobs of the baseline. A Scan reads the whole view in a call or two
 * where BatchGetItem on the jobs of each page would take one call per 100 jobs (its limit) and
 * bill each job as a 4 KB read: the Scan is cheaper at every size (docs/webhooks-and-events.md).
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
 *
 * The baseline alone is written in batches, without a condition (DynamoDB has no conditional
 * batch write): it only writes jobs the run found unrecorded, on the first passes over an empty
 * table, so the most an overlapping run can suffer is a change announced once more, with the
 * same changeId; never a change missed.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  type ConditionalUpdate,
  conditionalWrite,
  type DynamoDbTable,
  dynamoDbTable,
  type Item,
} from '../core/dynamo-db.ts';
import type { ObservedJob, RecordedJob, StatusChange } from './changes.ts';
import { chunksOf } from './changes.ts';
import type { RunLease, WatchCursor, WatcherState, WatcherStateStore } from './state-store.ts';

interface DynamoDbStateStoreOptions {
  readonly tableName: string;
  /** For tests; by default one client per container, configured from the environment. */
  readonly client?: DynamoDBClient;
  readonly now?: () => number;
}

/** Writes in flight at once: DynamoDB has no conditional batch write. */
const WRITE_CONCURRENCY = 10;
/** BatchWriteItem takes at most 25 items. */
const BATCH_WRITE_MAX_ITEMS = 25;
/** Tries of the items a BatchWriteItem left unprocessed (DynamoDB throttled part of it). */
const BATCH_WRITE_ATTEMPTS = 5;
/** The cursor's key: no job id starts with `#` (lib/scan-jobs/schemas.ts, isJobId). */
const CURSOR_KEY = '#cursor';

const keyOf = (instanceNo: string): Item => ({ instanceNo: { S: instanceNo } });

class DynamoDbStateStore implements WatcherStateStore {
  readonly description: string;
  readonly calls = { reads: 0, writes: 0 };
  private readonly table: DynamoDbTable;
  private readonly now: () => number;

  constructor(options: DynamoDbStateStoreOptions) {
    this.table = dynamoDbTable(options.tableName, options.client);
    this.now = options.now ?? (() => Date.now());
    this.description = `DynamoDB table ${options.tableName}`;
  }

  async load(): Promise<WatcherState> {
    const { sdk, client } = await this.table.connect();
    const jobs = new Map<string, RecordedJob>();
    let cursor: WatchCursor | undefined;
    let startKey: Item | undefined;
    do {
      this.calls.reads += 1;
      const page = await client.send(
        new sdk.ScanCommand({
          TableName: this.table.name,
          ConsistentRead: true,
          ExclusiveStartKey: startKey,
        }),
      );
      for (const item of page.Items ?? []) {
        if (item['instanceNo']?.S === CURSOR_KEY) cursor = cursorOf(item);
        else addRecorded(jobs, item);
      }
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    return { jobs, cursor };
  }

  async baseline(observed: readonly ObservedJob[], at: string): Promise<void> {
    await this.putAll(
      observed.map((job) => ({
        instanceNo: { S: job.instanceNo },
        status: { S: job.status },
        updatedAt: { S: at },
      })),
    );
  }

  async saveCursor(cursor: WatchCursor | undefined): Promise<void> {
    this.calls.writes += 1;
    if (cursor === undefined) {
      await conditionalWrite(this.table, { key: keyOf(CURSOR_KEY), delete: true });
      return;
    }
    const { sdk, client } = await this.table.connect();
    await client.send(
      new sdk.PutItemCommand({
        TableName: this.table.name,
        Item: {
          ...keyOf(CURSOR_KEY),
          nextPage: { N: String(cursor.nextPage) },
          pageSize: { N: String(cursor.pageSize) },
          baselining: { BOOL: cursor.baselining },
          updatedAt: { S: new Date(this.now()).toISOString() },
        },
      }),
    );
  }

  async claim(changes: readonly StatusChange[], lease: RunLease): Promise<StatusChange[]> {
    const won = await eachLimited(changes, (change) =>
      this.write(claimWrite(change, lease, this.now())),
    );
    return changes.filter((_change, index) => won[index]);
  }

  async record(changes: readonly StatusChange[], lease: RunLease, at: string): Promise<void> {
    // A lost condition means this run's claim lapsed and another run took the change over;
    // that run records it.
    await eachLimited(changes, ({ job }) =>
      this.write({
        key: keyOf(job.instanceNo),
        update: 'SET #status = :status, updatedAt = :at REMOVE claimToken, claimExpiresAt',
        condition: 'claimToken = :token',
        names: { '#status': 'status' },
        values: { ':status': { S: job.status }, ':at': { S: at }, ':token': { S: lease.token } },
      }),
    );
  }

  async release(changes: readonly StatusChange[], lease: RunLease): Promise<void> {
    await eachLimited(changes, ({ job }) =>
      this.write({
        key: keyOf(job.instanceNo),
        update: 'REMOVE claimToken, claimExpiresAt',
        condition: 'claimToken = :token',
        values: { ':token': { S: lease.token } },
      }),
    );
  }

  /** A conditional write of one job's item, counted; whether it was applied. */
  private async write(update: ConditionalUpdate): Promise<boolean> {
    this.calls.writes += 1;
    return (await conditionalWrite(this.table, update)).applied;
  }

  /** Puts the items in batches of 25, several batches at a time, until DynamoDB took them all. */
  private async putAll(items: readonly Item[]): Promise<void> {
    const { sdk, client } = await this.table.connect();
    const tableName = this.table.name;
    await eachLimited(chunksOf(items, BATCH_WRITE_MAX_ITEMS), async (batch) => {
      let pending = batch.map((Item) => ({ PutRequest: { Item } }));
      for (let attempt = 1; pending.length > 0; attempt++) {
        if (attempt > BATCH_WRITE_ATTEMPTS) {
          throw new Error(`DynamoDB left ${pending.length} baseline items unprocessed`);
        }
        if (attempt > 1) await sleep(50 * 2 ** attempt);
        this.calls.writes += 1;
        const answer = await client.send(
          new sdk.BatchWriteItemCommand({ RequestItems: { [tableName]: pending } }),
        );
        pending = (answer.UnprocessedItems?.[tableName] ?? []).flatMap((request) =>
          request.PutRequest?.Item ? [{ PutRequest: { Item: request.PutRequest.Item } }] : [],
        );
      }
    });
  }
}

/** The watcher's state in a DynamoDB table. */
export function dynamoDbStateStore(options: DynamoDbStateStoreOptions): WatcherStateStore {
  return new DynamoDbStateStore(options);
}

/** Runs `work` on every item, WRITE_CONCURRENCY at a time; the results in order. */
async function eachLimited<T, R>(items: readonly T[], work: (item: T) => Promise<R>) {
  const results: R[] = [];
  for (const chunk of chunksOf(items, WRITE_CONCURRENCY)) {
    results.push(...(await Promise.all(chunk.map(work))));
  }
  return results;
}

/**
 * The claim of a change: this run's token and deadline on the job's item, while its recorded
 * status is still the previous one (none, for a new job) and no live claim holds it.
 */
function claimWrite(change: StatusChange, lease: RunLease, now: number): ConditionalUpdate {
  const unclaimed = '(attribute_not_exists(claimToken) OR claimExpiresAt < :now)';
  const values: Item = {
    ':token': { S: lease.token },
    ':expires': { N: String(lease.expiresAt) },
    ':now': { N: String(now) },
  };
  const previous = change.previousStatus;
  // `status` is a DynamoDB reserved word, hence #status.
  return {
    key: keyOf(change.job.instanceNo),
    update: 'SET claimToken = :token, claimExpiresAt = :expires',
    condition:
      previous === null
        ? `attribute_not_exists(#status) AND ${unclaimed}`
        : `#status = :previous AND ${unclaimed}`,
    names: { '#status': 'status' },
    values: previous === null ? values : { ...values, ':previous': { S: previous } },
  };
}

function cursorOf(item: Item): WatchCursor | undefined {
  const nextPage = Number(item['nextPage']?.N);
  const pageSize = Number(item['pageSize']?.N);
  if (!(nextPage >= 1 && pageSize >= 1)) return undefined;
  return { nextPage, pageSize, baselining: item['baselining']?.BOOL === true };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** An item with a status is a recorded job; one without is only a claim of a new job. */
function addRecorded(jobs: Map<string, RecordedJob>, item: Item): void {
  const instanceNo = item['instanceNo']?.S;
  const status = item['status']?.S;
  if (instanceNo === undefined || status === undefined) return;
  jobs.set(instanceNo, { status, updatedAt: item['updatedAt']?.S ?? '' });
}
