/**
 * A usage record as a DynamoDB item, and the conditional writes of the DynamoDB usage store
 * (dynamo-usage-store.ts). One item per record (`usageKey`: `caller#<id>`, `account`, a shard's
 * `account#3`, or a lease's `lease#cancel-reserved#<id>`) holds everything a plan judges:
 *
 *   tat                                    the token bucket (GCRA's theoretical arrival time, µs)
 *   day, dayRequests, dayTranslate, dayTts        the UTC day's counters and which day they count
 *   month, monthRequests, monthTranslate, monthTts the UTC month's
 *   expiresAt                              TTL (epoch seconds): a month after the month ends
 *
 * An admission is one UpdateItem whose condition is the plan itself, so that DynamoDB, which
 * applies a conditional write atomically per item, admits exactly what the plan allows however
 * many containers write at once. DynamoDB's update expressions add and set but cannot take a
 * maximum, so each part of the write comes in two forms, picked from the item as the container
 * last saw it (n is the tokens taken: 1 for a request, more for a block of bulk work):
 *
 *   bucket running (tat > now):  SET tat = tat + n·interval
 *                                IF tat > now AND tat <= now + tolerance - (n-1)·interval
 *   bucket full (tat <= now):    SET tat = now + n·interval   IF tat absent OR tat <= now
 *   same window:                 ADD dayRequests n, ...       IF day = today AND dayRequests <= quota - n ...
 *   a new window:                SET day = today, dayRequests = n, ...  IF day absent OR day <> today
 *
 * The running bucket's and the same window's forms are increments: any number of containers
 * apply them at once without a lost update. A guess that no longer holds fails its condition,
 * and the store writes again in the right forms.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { ConditionalUpdate, Item } from '../core/dynamo-db.ts';
import type { Demand, UsageState } from './limits.ts';
import { COUNTERS, type Counter, type Counts, NO_COUNTS } from './plan.ts';
import type { GiveBack } from './store.ts';

/** A record is kept a month past its month's end (last month's usage stays readable). */
const KEEP_AFTER_MONTH_MS = 31 * 86_400_000;

/** A counter's attribute: `dayRequests`, `monthTranslate`, `dayTts`, ... */
const attributeOf = (window: 'day' | 'month', counter: Counter) =>
  window + counter[0]!.toUpperCase() + counter.slice(1);

const number = (value: number): AttributeValue => ({ N: String(value) });

/** The item's key. */
export const keyOf = (key: string): Item => ({ usageKey: { S: key } });

function countsOf(item: Item, window: 'day' | 'month'): Counts {
  const count = (counter: Counter) => Number(item[attributeOf(window, counter)]?.N ?? 0);
  return { requests: count('requests'), translate: count('translate'), tts: count('tts') };
}

/** A usage item as a state; undefined for no item (or a lease's). */
export function stateOfItem(item: Item | undefined): UsageState | undefined {
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
export class UpdateBuilder {
  readonly #sets: string[] = [];
  readonly #adds: string[] = [];
  readonly #conditions: string[] = [];
  readonly names: Record<string, string> = {};
  readonly values: Item = {};

  name(attribute: string): string {
    this.names[`#${attribute}`] = attribute;
    return `#${attribute}`;
  }

  /** A placeholder of the value (`:v0`, `:v1`, ...). */
  value(value: AttributeValue | number): string {
    const placeholder = `:v${Object.keys(this.values).length}`;
    this.values[placeholder] = typeof value === 'number' ? number(value) : value;
    return placeholder;
  }

  set(clause: string): void {
    this.#sets.push(clause);
  }

  add(clause: string): void {
    this.#adds.push(clause);
  }

  when(condition: string): void {
    this.#conditions.push(`(${condition})`);
  }

  get update(): string {
    return [
      this.#sets.length > 0 ? `SET ${this.#sets.join(', ')}` : '',
      this.#adds.length > 0 ? `ADD ${this.#adds.join(', ')}` : '',
    ]
      .filter(Boolean)
      .join(' ');
  }

  get condition(): string | undefined {
    return this.#conditions.length > 0 ? this.#conditions.join(' AND ') : undefined;
  }

  /** This write, of the item `key`, as the store sends it (conditionalWrite). */
  of(key: string, returns?: Pick<ConditionalUpdate, 'returns' | 'failedItem'>): ConditionalUpdate {
    const { update, condition, names, values } = this;
    return { key: keyOf(key), update, condition, names, values, ...returns };
  }
}

/** The bucket's part of an admission: running (an increment) or full (a set). */
function bucketPart(write: UpdateBuilder, demand: Demand, running: boolean): void {
  const rate = demand.rules.rate;
  if (!rate) return;
  const tokens = Math.max(1, demand.counts.requests);
  const nowUs = demand.nowMs * 1000;
  const tat = write.name('tat');
  const now = write.value(nowUs);
  // A block of the whole burst fits only a full bucket: never the running form.
  if (running && (tokens - 1) * rate.intervalUs < rate.toleranceUs) {
    write.set(`${tat} = ${tat} + ${write.value(tokens * rate.intervalUs)}`);
    const latest = nowUs + rate.toleranceUs - (tokens - 1) * rate.intervalUs;
    write.when(`${tat} > ${now} AND ${tat} <= ${write.value(latest)}`);
  } else {
    write.set(`${tat} = ${write.value(nowUs + tokens * rate.intervalUs)}`);
    write.when(`attribute_not_exists(${tat}) OR ${tat} <= ${now}`);
  }
}

/** A window's part of an admission: increments within it, or its counters set afresh. */
function windowPart(
  write: UpdateBuilder,
  demand: Demand,
  window: 'day' | 'month',
  same: boolean,
): void {
  const { counts, windows, rules } = demand;
  const key = write.name(window);
  const current = write.value({ S: windows[window] });
  if (!same) {
    write.set(`${key} = ${current}`);
    for (const counter of COUNTERS) {
      const attribute = write.name(attributeOf(window, counter));
      write.set(`${attribute} = ${write.value(counts[counter])}`);
    }
    write.when(`attribute_not_exists(${key}) OR ${key} <> ${current}`);
    return;
  }
  const fits: string[] = [`${key} = ${current}`];
  for (const counter of COUNTERS) {
    if (counts[counter] === 0) continue;
    const attribute = write.name(attributeOf(window, counter));
    write.add(`${attribute} ${write.value(counts[counter])}`);
    const limit = rules[window][counter];
    if (limit === undefined) continue;
    const most = write.value(limit - counts[counter]);
    fits.push(`${attribute} <= ${most}`);
  }
  write.when(fits.join(' AND '));
}

/**
 * The conditional write of a demand, in the forms the last known item calls for (`running`: the
 * bucket's running form though the item seen last had it full). Its condition holds exactly
 * when the demand fits the item and the item is in the forms' shape.
 */
export function admissionWrite(
  known: UsageState | undefined,
  demand: Demand,
  running: boolean,
): UpdateBuilder {
  const write = new UpdateBuilder();
  const expiresAt = Math.ceil((demand.windows.monthEndsAt + KEEP_AFTER_MONTH_MS) / 1000);
  write.set(`${write.name('expiresAt')} = ${write.value(expiresAt)}`);
  const nowUs = demand.nowMs * 1000;
  bucketPart(
    write,
    demand,
    known !== undefined && (known.tat > nowUs || (running && known.tat > 0)),
  );
  for (const window of ['day', 'month'] as const) {
    windowPart(write, demand, window, known?.[window] === demand.windows[window]);
  }
  return write;
}

/**
 * The write that takes units back from the windows named (only while the item still counts
 * them: a unit taken on the 30th and given back on the 1st is not taken from the new month),
 * and the bucket's steps. Undefined when there is nothing to write.
 */
export function giveBackWrite(
  back: GiveBack,
  windows: readonly ('day' | 'month')[],
): UpdateBuilder | undefined {
  const write = new UpdateBuilder();
  for (const window of windows) {
    for (const counter of COUNTERS) {
      if (back.counts[counter] === 0) continue;
      const attribute = write.name(attributeOf(window, counter));
      write.add(`${attribute} ${write.value(-back.counts[counter])}`);
    }
    write.when(`${write.name(window)} = ${write.value({ S: back[window] })}`);
  }
  if (back.intervalUs > 0) {
    write.add(`${write.name('tat')} ${write.value(-back.intervalUs)}`);
  }
  return write.update === '' ? undefined : write;
}

/** The write that takes a lease until `untilMs` unless another holder's runs past `nowMs`. */
export function leaseWrite(token: string, untilMs: number, nowMs: number): UpdateBuilder {
  const write = new UpdateBuilder();
  const until = write.name('leaseUntil');
  write.set(`${write.name('leaseToken')} = ${write.value({ S: token })}`);
  write.set(`${until} = ${write.value(untilMs)}`);
  write.set(`${write.name('expiresAt')} = ${write.value(Math.ceil(untilMs / 1000) + 3600)}`);
  write.when(`attribute_not_exists(${until}) OR ${until} <= ${write.value(nowMs)}`);
  return write;
}
