/**
 * Usage in a DynamoDB table of the stack: exact across every function and container, in one
 * conditional write per admission.
 *
 * One item per subject (`usageKey` `caller#<id>`, or `account`) holds everything a plan judges:
 *
 *   tat                                    the token bucket (GCRA's theoretical arrival time, µs)
 *   day, dayRequests, dayTranslate, dayTts        the UTC day's counters and which day they count
 *   month, monthRequests, monthTranslate, monthTts the UTC month's
 *   expiresAt                              TTL (epoch seconds): a month after the month ends
 *
 * An admission is one UpdateItem whose condition is the plan itself, so that DynamoDB, which
 * applies a conditional write atomically per item, admits exactly what the plan allows however
 * many containers write at once. DynamoDB's update expressions add and set but cannot take a
 * maximum, so each part of the write comes in two forms, and the store picks them from the
 * item as it last saw it (a cache per container, refreshed by every write's ALL_NEW):
 *
 *   bucket running (tat > now):  SET tat = tat + interval   IF tat > now AND tat <= now + tolerance
 *   bucket full (tat <= now):    SET tat = now + interval   IF tat absent OR tat <= now
 *   same window:                 ADD dayRequests 1, ...     IF day = today AND dayRequests <= quota - 1 ...
 *   a new window:                SET day = today, dayRequests = 1, ...  IF day absent OR day <> today
 *
 * The running bucket's and the same window's forms are increments: any number of containers
 * apply them at once without a lost update, and they are what a busy caller's writes use. A
 * guess that no longer holds (another container filled the bucket or opened the day first)
 * fails its condition; DynamoDB then returns the item as it is (ReturnValuesOnConditionCheckFailure
 * ALL_OLD, no second read), which tells a request over its plan (refused, done) from a wrong
 * guess (written again with the right forms). dynalite does not return that item: a
 * consistent GetItem reads it there.
 *
 * A request refused by the item the container last saw, less than a second ago, is refused
 * without a call: counters and the bucket only grow within a window, so the refusal stands
 * (a unit given back in that second is seen a second late).
 */
import type { AttributeValue, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { type DynamoDbBounds, lazyDynamoDb } from '../core/dynamo-db.js';
import { type Demand, givenBack, judge, type UsageState } from './limits.js';
import { COUNTERS, type Counter, type Counts, NO_COUNTS } from './plan.js';
import type { GiveBack, LeaseResult, TakeResult, UsageStore } from './store.js';

type Item = Record<string, AttributeValue>;

interface DynamoDbUsageStoreOptions {
  readonly tableName: string;
  /** For tests; by default one client per container, configured from the environment. */
  readonly client?: DynamoDBClient;
  /** How long a refusal read from the last item seen stands without a call (1 s). */
  readonly refusalCacheMs?: number;
}

/**
 * Admission is on every request's path: 1 s to connect, 1 s an attempt, 2 attempts, so that a
 * store that does not answer costs a request a few seconds at most before the failure policy
 * (USAGE_STORE_FAILURE) decides, rather than the function's time. Not shorter: a process serving
 * many requests at once (Lambda Managed Instances) opens many connections together, and a
 * connection that is only slow must not count as a store that failed (under the open policy,
 * that would admit a request uncounted).
 */
const ADMISSION_BOUNDS: DynamoDbBounds = {
  connectionTimeoutMs: 1000,
  requestTimeoutMs: 1000,
  maxAttempts: 2,
  // A connection for each request a process serves at once (64 a vCPU on Managed Instances).
  maxSockets: 256,
};

/** Writes of one admission before the store gives up (each one saw the item change). */
const MAX_WRITES = 8;
/** Items remembered per container: far more callers than a secret lists. */
const MAX_CACHED = 2000;
/** A record is kept a month past its month's end (last month's usage stays readable). */
const KEEP_AFTER_MONTH_MS = 31 * 86_400_000;

const ATTRIBUTE: Record<'day' | 'month', Record<Counter, string>> = {
  day: { requests: 'dayRequests', translate: 'dayTranslate', tts: 'dayTts' },
  month: { requests: 'monthRequests', translate: 'monthTranslate', tts: 'monthTts' },
};

const number = (value: number): AttributeValue => ({ N: String(value) });

function countsOf(item: Item, window: 'day' | 'month'): Counts {
  const names = ATTRIBUTE[window];
  return {
    requests: Number(item[names.requests]?.N ?? 0),
    translate: Number(item[names.translate]?.N ?? 0),
    tts: Number(item[names.tts]?.N ?? 0),
  };
}

/** A usage item as a state; undefined for no item (or a lease's). */
function stateOfItem(item: Item | undefined): UsageState | undefined {
  if (!item || (item.day === undefined && item.tat === undefined)) return undefined;
  return {
    tat: Number(item.tat?.N ?? 0),
    day: item.day?.S ?? '',
    dayCounts: item.day ? countsOf(item, 'day') : NO_COUNTS,
    month: item.month?.S ?? '',
    monthCounts: item.month ? countsOf(item, 'month') : NO_COUNTS,
  };
}

/** One UpdateItem's expression, built part by part. */
class UpdateBuilder {
  private readonly sets: string[] = [];
  private readonly adds: string[] = [];
  private readonly conditions: string[] = [];
  readonly names: Record<string, string> = {};
  readonly values: Item = {};

  name(attribute: string): string {
    this.names[`#${attribute}`] = attribute;
    return `#${attribute}`;
  }

  value(placeholder: string, value: AttributeValue): string {
    this.values[`:${placeholder}`] = value;
    return `:${placeholder}`;
  }

  set(clause: string): void {
    this.sets.push(clause);
  }

  add(clause: string): void {
    this.adds.push(clause);
  }

  when(condition: string): void {
    this.conditions.push(`(${condition})`);
  }

  get update(): string {
    return [
      this.sets.length > 0 ? `SET ${this.sets.join(', ')}` : '',
      this.adds.length > 0 ? `ADD ${this.adds.join(', ')}` : '',
    ]
      .filter(Boolean)
      .join(' ');
  }

  get condition(): string | undefined {
    return this.conditions.length > 0 ? this.conditions.join(' AND ') : undefined;
  }
}

/**
 * The conditional write of a demand, in the forms the last known item calls for. Its condition
 * holds exactly when the demand fits the item and the item is in the forms' shape.
 */
function admissionWrite(
  known: UsageState | undefined,
  demand: Demand,
  /** Whether to write the running bucket's form though the item seen last had it full. */
  likelyRunning: boolean,
): UpdateBuilder {
  const write = new UpdateBuilder();
  const { rules, counts, windows } = demand;
  write.set(
    `${write.name('expiresAt')} = ${write.value('expiresAt', number(Math.ceil((windows.monthEndsAt + KEEP_AFTER_MONTH_MS) / 1000)))}`,
  );
  const rate = rules.rate;
  if (rate) {
    const nowUs = demand.nowMs * 1000;
    const tat = write.name('tat');
    const now = write.value('nowUs', number(nowUs));
    if (known && (known.tat > nowUs || (likelyRunning && known.tat > 0))) {
      write.set(`${tat} = ${tat} + ${write.value('interval', number(rate.intervalUs))}`);
      write.when(
        `${tat} > ${now} AND ${tat} <= ${write.value('latest', number(nowUs + rate.toleranceUs))}`,
      );
    } else {
      write.set(`${tat} = ${write.value('nextTat', number(nowUs + rate.intervalUs))}`);
      write.when(`attribute_not_exists(${tat}) OR ${tat} <= ${now}`);
    }
  }
  for (const window of ['day', 'month'] as const) {
    const key = write.name(window);
    const current = write.value(window, { S: windows[window] });
    const limits = rules[window];
    if (known?.[window] === windows[window]) {
      const fits: string[] = [`${key} = ${current}`];
      for (const counter of COUNTERS) {
        if (counts[counter] === 0) continue;
        const attribute = write.name(ATTRIBUTE[window][counter]);
        write.add(`${attribute} ${write.value(`${window}_${counter}`, number(counts[counter]))}`);
        const limit = limits[counter];
        if (limit !== undefined) {
          fits.push(
            `${attribute} <= ${write.value(`${window}_${counter}_max`, number(limit - counts[counter]))}`,
          );
        }
      }
      write.when(fits.join(' AND '));
    } else {
      write.set(`${key} = ${current}`);
      for (const counter of COUNTERS) {
        write.set(
          `${write.name(ATTRIBUTE[window][counter])} = ${write.value(`${window}_${counter}`, number(counts[counter]))}`,
        );
      }
      write.when(`attribute_not_exists(${key}) OR ${key} <> ${current}`);
    }
  }
  return write;
}

interface Sighting {
  readonly state: UsageState;
  readonly at: number;
  /** The subject's requests per ms, every container's together; 0 while unknown. */
  readonly perMs: number;
}

/**
 * Whether the bucket is more likely running than full, though the item seen last had it full:
 * other containers' requests run it too. With requests arriving independently at λ a second,
 * one came in the last interval T (so the bucket runs) with the chance 1 - e^(-λT): more
 * likely than not once λT > ln 2, a caller at 70 % of its rate or more.
 */
function likelyRunning(last: Sighting | undefined, demand: Demand): boolean {
  const rate = demand.rules.rate;
  if (!last || !rate) return false;
  return last.perMs * (rate.intervalUs / 1000) > Math.LN2;
}

/** The usage store in a DynamoDB table (partition key `usageKey`, TTL on `expiresAt`). */
export function dynamoDbUsageStore(options: DynamoDbUsageStoreOptions): UsageStore {
  const { tableName } = options;
  const refusalCacheMs = options.refusalCacheMs ?? 1000;
  const connect = lazyDynamoDb(options.client, ADMISSION_BOUNDS);
  /**
   * The last item each key was seen with, and when: this container's guess of the forms; and
   * the rate at which the subject's requests arrive, from every container together (its day
   * counter between two sightings, smoothed).
   */
  const seen = new Map<string, Sighting>();
  /** The first write of a key this container has not seen, while it runs. */
  const firstSightings = new Map<string, Promise<void>>();

  const remember = (key: string, state: UsageState | undefined, at: number) => {
    const last = seen.get(key);
    seen.delete(key);
    if (!state) return;
    if (seen.size >= MAX_CACHED) seen.delete(seen.keys().next().value as string);
    let perMs = last?.perMs ?? 0;
    if (last && last.state.day === state.day && at > last.at) {
      const arrived = state.dayCounts.requests - last.state.dayCounts.requests;
      perMs =
        last.perMs === 0
          ? arrived / (at - last.at)
          : 0.7 * last.perMs + (0.3 * arrived) / (at - last.at);
    }
    seen.set(key, { state, at, perMs });
  };
  const keyOf = (key: string): Item => ({ usageKey: { S: key } });

  /** A conditional UpdateItem: the new item, or the item that failed its condition. */
  async function update(
    key: string,
    write: UpdateBuilder,
  ): Promise<{ ok: true; item: Item } | { ok: false; item: Item | undefined }> {
    const { sdk, client } = await connect();
    try {
      const answer = await client.send(
        new sdk.UpdateItemCommand({
          TableName: tableName,
          Key: keyOf(key),
          UpdateExpression: write.update,
          ConditionExpression: write.condition,
          ExpressionAttributeNames: write.names,
          ExpressionAttributeValues: write.values,
          ReturnValues: 'ALL_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return { ok: true, item: answer.Attributes ?? {} };
    } catch (error) {
      if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
      const returned = (error as { Item?: Item }).Item;
      if (returned) return { ok: false, item: returned };
      // dynalite does not return the item: read it (DynamoDB always does).
      const found = await client.send(
        new sdk.GetItemCommand({ TableName: tableName, Key: keyOf(key), ConsistentRead: true }),
      );
      return { ok: false, item: found.Item };
    }
  }

  /** One admission's writes, from what this container saw of the item. */
  async function takeSeen(key: string, demand: Demand): Promise<TakeResult> {
    const last = seen.get(key);
    if (last && demand.nowMs - last.at <= refusalCacheMs) {
      const verdict = judge(last.state, demand);
      if (!verdict.ok) return { taken: false, state: last.state, refusal: verdict.refusal };
    }
    // A request larger than a quota fits no item: refused without a call.
    const alone = judge(undefined, demand);
    if (!alone.ok) return { taken: false, state: last?.state, refusal: alone.refusal };
    let known = last?.state;
    for (let written = 0; written < MAX_WRITES; written++) {
      const result = await update(
        key,
        admissionWrite(known, demand, likelyRunning(written === 0 ? last : undefined, demand)),
      );
      const state = stateOfItem(result.item);
      remember(key, state, demand.nowMs);
      if (result.ok && state) return { taken: true, state };
      const verdict = judge(state, demand);
      if (!verdict.ok) return { taken: false, state, refusal: verdict.refusal };
      known = state;
    }
    throw new Error(`usage item ${key} changed under ${MAX_WRITES} writes in a row`);
  }

  return {
    description: `DynamoDB table ${tableName}`,

    async take(key, demand): Promise<TakeResult> {
      // A container that has not seen the item yet learns it from its first write; requests
      // of the same container meanwhile (local runs, tests: a Lambda container serves one at a
      // time) wait for it rather than all guessing blind.
      const learning = firstSightings.get(key);
      if (learning && !seen.has(key)) await learning;
      if (!seen.has(key) && !firstSightings.has(key)) {
        const first = takeSeen(key, demand);
        const settled = first.then(
          () => undefined,
          () => undefined,
        );
        firstSightings.set(key, settled);
        void settled.then(() => firstSightings.delete(key));
        return first;
      }
      return takeSeen(key, demand);
    },

    async giveBack(key, back: GiveBack): Promise<void> {
      // Each window's counters only while the item still counts that window: a unit taken on
      // the 30th and given back on the 1st is not taken from the new month.
      const { sdk, client } = await connect();
      const attempt = async (windows: readonly ('day' | 'month')[]) => {
        const write = new UpdateBuilder();
        for (const window of windows) {
          for (const counter of COUNTERS) {
            if (back.counts[counter] === 0) continue;
            write.add(
              `${write.name(ATTRIBUTE[window][counter])} ${write.value(`${window}_${counter}`, number(-back.counts[counter]))}`,
            );
          }
          write.when(`${write.name(window)} = ${write.value(window, { S: back[window] })}`);
        }
        if (back.intervalUs > 0) {
          write.add(`${write.name('tat')} ${write.value('interval', number(-back.intervalUs))}`);
        }
        if (write.update === '') return true;
        try {
          await client.send(
            new sdk.UpdateItemCommand({
              TableName: tableName,
              Key: keyOf(key),
              UpdateExpression: write.update,
              ConditionExpression: write.condition,
              ExpressionAttributeNames: write.names,
              ExpressionAttributeValues: write.values,
            }),
          );
          return true;
        } catch (error) {
          if ((error as Error).name === 'ConditionalCheckFailedException') return false;
          throw error;
        }
      };
      // What this container saw, less the units: its guess of the forms holds, and a refusal
      // it would read from it no longer stands.
      const last = seen.get(key);
      if (last)
        seen.set(key, {
          ...last,
          state: givenBack(last.state, back.counts, back, back.intervalUs),
        });
      // The windows rarely roll between taking and giving back: one call, two or three then.
      if (await attempt(['day', 'month'])) return;
      if (await attempt(['month'])) return;
      await attempt([]);
    },

    async read(key) {
      const { sdk, client } = await connect();
      const found = await client.send(
        new sdk.GetItemCommand({ TableName: tableName, Key: keyOf(key), ConsistentRead: true }),
      );
      return stateOfItem(found.Item);
    },

    async acquireLease(key, token, untilMs, nowMs): Promise<LeaseResult> {
      const write = new UpdateBuilder();
      const until = write.name('leaseUntil');
      write.set(`${write.name('leaseToken')} = ${write.value('token', { S: token })}`);
      write.set(`${until} = ${write.value('until', number(untilMs))}`);
      write.set(
        `${write.name('expiresAt')} = ${write.value('expiresAt', number(Math.ceil(untilMs / 1000) + 3600))}`,
      );
      write.when(
        `attribute_not_exists(${until}) OR ${until} <= ${write.value('now', number(nowMs))}`,
      );
      const result = await update(key, write);
      if (result.ok) return { acquired: true };
      return { acquired: false, untilMs: Number(result.item?.leaseUntil?.N ?? nowMs) };
    },

    async releaseLease(key, token) {
      const { sdk, client } = await connect();
      try {
        await client.send(
          new sdk.DeleteItemCommand({
            TableName: tableName,
            Key: keyOf(key),
            ConditionExpression: '#leaseToken = :token',
            ExpressionAttributeNames: { '#leaseToken': 'leaseToken' },
            ExpressionAttributeValues: { ':token': { S: token } },
          }),
        );
      } catch (error) {
        // Taken over after it lapsed: the lease is another holder's now.
        if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
      }
    },
  };
}
