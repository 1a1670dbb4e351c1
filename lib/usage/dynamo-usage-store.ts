/**
 * Usage in a DynamoDB table of the stack: exact across every function and container, in one
 * conditional write per record taken from (dynamo-usage-item.ts has the item and the writes,
 * which the stores' one conditional write sends: core/dynamo-db.ts, conditionalWrite).
 *
 * The store picks each write's forms from the item as this container last saw it (sightings.ts,
 * refreshed by every write's ALL_NEW). A guess that no longer holds (another container filled
 * the bucket or opened the day first) fails its condition; DynamoDB then returns the item as it
 * is (ReturnValuesOnConditionCheckFailure ALL_OLD, no second read), which tells a request over
 * its plan (refused, done) from a wrong guess (written again in the right forms). dynalite does
 * not return that item: a consistent GetItem reads it there.
 *
 * A request refused by the item the container last saw is refused without a call: counters and
 * the bucket only grow within a window, so the refusal stands (a unit given back meanwhile is
 * seen late): a quota's for a second, the bucket's until its tokens are there by the clock. A
 * container that lost a token to another holds off a little longer (sightings.ts, `lost`).
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  conditionalWrite,
  type DynamoDbBounds,
  type DynamoDbTable,
  dynamoDbTable,
  readItem,
} from '../core/dynamo-db.ts';
import {
  admissionWrite,
  giveBackWrite,
  keyOf,
  stateOfItem,
  type UpdateBuilder,
} from './dynamo-usage-item.ts';
import { type Demand, givenBack, judge, type Refusal, type UsageState } from './limits.ts';
import { likelyRunning, Sightings } from './sightings.ts';
import type { GiveBack, TakeResult, UsageStore } from './store.ts';

interface DynamoDbUsageStoreOptions {
  readonly tableName: string;
  /** For tests; by default one client per container, configured from the environment. */
  readonly client?: DynamoDBClient;
  /** How long a refusal read from the last item seen stands without a call (1 s). */
  readonly refusalCacheMs?: number;
  /** How long a container holds off a bucket whose token it lost, 0 to 1 (tests fix it). */
  readonly random?: () => number;
}

/**
 * Admission is on every request's path: 1 s to connect, 2 s without an answer, 2 attempts, so
 * that a table that does not answer costs a request about 4 s (6 at most) before the failure
 * policy (USAGE_STORE_FAILURE) decides, rather than the function's time; the gate then leaves
 * it alone for a while (gate.ts). Not shorter: a process serving many requests at once (Lambda
 * Managed Instances) opens many connections together, and a connection that is only slow must
 * not count as a store that failed.
 */
export const ADMISSION_BOUNDS: DynamoDbBounds = {
  connectionTimeoutMs: 1000,
  requestTimeoutMs: 2000,
  maxAttempts: 2,
  // A connection for each request a process serves at once (64 a vCPU on Managed Instances).
  maxSockets: 256,
};

/**
 * Writes of one item a container has in flight at once; the others wait their turn here. One
 * item takes about 1,000 writes a second; more at once only queue at the table, where their
 * wait would count as the table's silence.
 */
const WRITES_IN_FLIGHT = 4;

/** Writes of one take before the store gives up (each one saw the item change). */
const MAX_WRITES = 8;

/** A bucket held off after a lost token (sightings.ts). */
const heldOff = (retryAfterMs: number): Refusal => ({
  kind: 'rate',
  limit: 'rateRps',
  retryAfterMs,
});

/** The usage store in a DynamoDB table (partition key `usageKey`, TTL on `expiresAt`). */
export const dynamoDbUsageStore = (options: DynamoDbUsageStoreOptions): UsageStore =>
  new DynamoDbUsageStore(options);

class DynamoDbUsageStore implements UsageStore {
  readonly #table: DynamoDbTable;
  readonly #refusalCacheMs: number;
  readonly #random: () => number;
  readonly #sightings = new Sightings();
  /** The first write of a key this container has not seen, while it runs. */
  readonly #learning = new Map<string, Promise<unknown>>();
  /** Of each item this container writes: the writes in flight, and those waiting their turn. */
  readonly #turns = new Map<string, { running: number; readonly waiting: (() => void)[] }>();

  constructor(options: DynamoDbUsageStoreOptions) {
    this.#table = dynamoDbTable(options.tableName, options.client, ADMISSION_BOUNDS);
    this.#refusalCacheMs = options.refusalCacheMs ?? 1000;
    this.#random = options.random ?? Math.random;
  }

  // A container that has not seen the item yet learns it from its first write; its other
  // requests meanwhile wait for it rather than all guessing blind.
  async take(key: string, demand: Demand): Promise<TakeResult> {
    const sightings = this.#sightings;
    const learning = this.#learning;
    // No await unless one is learning: the first request takes its place before any other.
    const first = !sightings.get(key) && learning.get(key);
    if (first) await first;
    if (sightings.get(key) || learning.has(key)) return this.#takeSeen(key, demand);
    const taking = this.#takeSeen(key, demand);
    const settled = taking.catch(() => undefined);
    learning.set(key, settled);
    void settled.then(() => learning.delete(key));
    return taking;
  }

  async giveBack(key: string, back: GiveBack): Promise<void> {
    // What this container saw, less the units: its guess of the forms holds, and a refusal
    // it would read from it no longer stands.
    const last = this.#sightings.get(key);
    if (last) {
      this.#sightings.set(key, {
        ...last,
        state: givenBack(last.state, back.counts, back, back.intervalUs),
      });
    }
    // The windows rarely roll between taking and giving back: one call, two or three then.
    (await this.#tryWrite(key, giveBackWrite(back, ['day', 'month']))) ||
      (await this.#tryWrite(key, giveBackWrite(back, ['month']))) ||
      (await this.#tryWrite(key, giveBackWrite(back, [])));
  }

  peek(key: string): UsageState | undefined {
    return this.#sightings.get(key)?.state;
  }

  async read(key: string): Promise<UsageState | undefined> {
    return stateOfItem(await readItem(this.#table, keyOf(key)));
  }

  /** What the item this container saw last answers without a call, if anything. */
  #answerSeen(key: string, demand: Demand): TakeResult | undefined {
    const last = this.#sightings.get(key);
    if (!last) return undefined;
    const cached = judge(last.state, demand);
    // A bucket only runs further ahead: its refusal stands however old the sighting.
    if (
      !cached.ok &&
      (cached.refusal.kind === 'rate' || demand.nowMs - last.at <= this.#refusalCacheMs)
    ) {
      return { taken: false, state: last.state, refusal: cached.refusal };
    }
    // A hold is the bucket's: a demand of no rate (a count) is never held off.
    const holdMs = demand.rules.rate ? (last.holdUntil ?? 0) - demand.nowMs : 0;
    if (holdMs > 0) return { taken: false, state: last.state, refusal: heldOff(holdMs) };
    return undefined;
  }

  /** One take's writes, from what this container saw of the item. */
  async #takeSeen(key: string, demand: Demand): Promise<TakeResult> {
    const seen = this.#answerSeen(key, demand);
    if (seen) return seen;
    const last = this.#sightings.get(key);
    // A demand larger than a quota or the burst fits no item: refused without a call.
    const alone = judge(undefined, demand);
    if (!alone.ok) return { taken: false, state: last?.state, refusal: alone.refusal };
    let known = last?.state;
    for (let written = 0; written < MAX_WRITES; written++) {
      const running = likelyRunning(written === 0 ? last : undefined, demand);
      // The item written, or the one that failed the condition.
      const write = admissionWrite(known, demand, running).of(key, {
        returns: 'new',
        failedItem: true,
      });
      const result = await this.#inTurn(key, () => conditionalWrite(this.#table, write));
      const state = stateOfItem(result.item);
      this.#sightings.remember(key, state, demand.nowMs);
      if (result.applied && state) return { taken: true, state };
      const verdict = judge(state, demand);
      if (!verdict.ok) {
        const { refusal } = verdict;
        if (refusal.kind === 'quota') return { taken: false, state, refusal };
        // Another container took the token this one saw coming: it holds off a while.
        const losses = (last?.losses ?? 0) + 1;
        const intervalMs = (demand.rules.rate?.intervalUs ?? 0) / 1000;
        const held = this.#sightings.lost(key, refusal, losses, intervalMs, this.#random);
        return { taken: false, state, refusal: held };
      }
      known = state;
    }
    throw new Error(`usage item ${key} kept changing`);
  }

  /** A write whose refused condition means only "not this form": whether it was applied. */
  async #tryWrite(key: string, write: UpdateBuilder | undefined): Promise<boolean> {
    return (
      !write ||
      (await this.#inTurn(key, () => conditionalWrite(this.#table, write.of(key)))).applied
    );
  }

  /** One write of the item, in its turn: at most WRITES_IN_FLIGHT at once. */
  async #inTurn<T>(key: string, write: () => Promise<T>): Promise<T> {
    const turn = this.#turns.get(key) ?? { running: 0, waiting: [] };
    this.#turns.set(key, turn);
    // A write that waits is handed the turn of one that ends.
    if (turn.running < WRITES_IN_FLIGHT) turn.running++;
    else await new Promise<void>((resolve) => turn.waiting.push(resolve));
    try {
      return await write();
    } finally {
      const next = turn.waiting.shift();
      if (next) next();
      else turn.running--;
    }
  }
}
