/**
 * Metrics in CloudWatch's embedded metric format (EMF): JSON log lines with an `_aws` member,
 * which CloudWatch Logs turns into metrics, with no API call and no client. Each invocation
 * counts on its own `Metrics` (made with its request state, passed to every call it makes in its
 * call context), never in module scope: one process may serve many invocations at once (Lambda
 * Managed Instances), and each line must carry its own invocation's counts. A count costs an
 * array push. When the invocation ends they are packed into as few EMF documents as their values
 * allow (`take`); an HTTP function writes the first in its request log line, so that a request
 * usually costs one line, not two (an EMF document may carry other members: CloudWatch reads only
 * what `_aws` declares).
 *
 * Powertools' Metrics does the same; it was weighed and left out: its bundle is 16 KB and it
 * adds about 7 ms to a cold start, for the handful of counters below.
 */

export const METRIC_NAMESPACE = 'PlatformGateway';

/**
 * Every metric the service writes, with the dimensions each count gives (`take` adds
 * `Function` to every one): `count` takes exactly these, so that what the code writes is what
 * the stage's dashboard and alarms read (sls/plugins/dashboard.ts, its test). Types only in a
 * function's bundle: no code reads this table while it serves.
 */
export const METRIC_DIMENSIONS = {
  /** A request of a known caller (answered or refused). */
  CallerRequests: ['Caller', 'Route'],
  /** An upstream call ended (Outcome: `success`, `client-error`, `server-error`, or how it failed). */
  UpstreamCalls: ['Service', 'Outcome'],
  /** Attempts beyond the first. */
  UpstreamRetries: ['Service'],
  /** A retry the table allowed but the container's retry budget could not pay for. */
  UpstreamRetriesRefused: ['Service'],
  /** A call ended at its deadline. */
  UpstreamTimeouts: ['Service'],
  /** A webhook delivery that had run already, not run again. */
  WebhookDuplicates: [],
  /** A queued invocation failed on its last receive: SQS moves it to the dead-letter queue. */
  InvocationsToDeadLetterQueue: [],
  /** The consumer parked a queued invocation in the dead-letter queue (the reason is logged). */
  InvocationsParked: [],
  /** The usage table could not answer (Policy `open`: admitted, `closed`: refused). */
  UsageStoreFailures: ['Policy'],
  /** A request a usage plan refused (Plan `caller` or `account`, and its Limit). */
  UsageRefusals: ['Plan', 'Limit'],
  /** Characters of text an admitted request sends (translate, tts). */
  CallerCharacters: ['Caller', 'Api'],
  /** After an admission under an account plan: the largest share of its monthly quotas used. */
  AccountMonthQuotaUsedPercent: [],
  /** An answer too large for a response, handed off through the stage's bucket. */
  HandOffs: [],
  /** The bytes of the answers handed off (unit Bytes). */
  HandOffBytes: [],
} as const satisfies Record<string, readonly string[]>;

type MetricName = keyof typeof METRIC_DIMENSIONS;

/** The dimensions a count of `N` gives: each of its names, a string, and no other. */
type DimensionsOf<N extends MetricName> = {
  readonly [D in (typeof METRIC_DIMENSIONS)[N][number]]: string;
};

/** The unit of a metric that counts something other than events. */
const UNITS: Partial<Record<MetricName, MetricUnit>> = { HandOffBytes: 'Bytes' };

type MetricUnit = 'Count' | 'Bytes';

type Dimensions = Readonly<Record<string, string>>;

interface Count {
  readonly name: MetricName;
  readonly dimensions: Dimensions;
  value: number;
}

/** An EMF document: the `_aws` metadata, and the dimension and metric values at its root. */
export type MetricDocument = Readonly<Record<string, unknown>>;

interface MetricDirective {
  readonly Namespace: string;
  readonly Dimensions: string[][];
  readonly Metrics: { Name: string; Unit: MetricUnit }[];
}

/** The counters of one invocation. */
export class Metrics {
  readonly #counts: Count[] = [];

  /** Adds to a counter of this invocation. */
  count<N extends MetricName>(name: N, dimensions: DimensionsOf<N>, value = 1): void {
    this.#counts.push({ name, dimensions, value });
  }

  /**
   * Takes what the invocation counted, summed per metric and set of dimensions, and starts
   * afresh. `function` is added as a dimension to every metric. Groups share a document unless a
   * dimension would need two values or a metric two sums (two outcomes of the same call, say).
   */
  take(functionName: string): MetricDocument[] {
    const counts = this.#counts;
    if (counts.length === 0) return [];
    // Runs on every invocation: a few counts, so plain arrays and loops, no map or key string.
    const groups: { dimensions: Dimensions; values: Record<string, number> }[] = [];
    for (const count of counts) {
      const group = groups.find((each) => sameDimensions(each.dimensions, count.dimensions));
      if (group) group.values[count.name] = (group.values[count.name] ?? 0) + count.value;
      else groups.push({ dimensions: count.dimensions, values: { [count.name]: count.value } });
    }
    counts.length = 0;
    const documents: { members: Record<string, unknown>; directives: MetricDirective[] }[] = [];
    for (const group of groups) {
      const dimensions = { Function: functionName, ...group.dimensions };
      const { values } = group;
      let document = documents.find(({ members }) => fits(members, dimensions, values));
      if (!document) {
        document = { members: {}, directives: [] };
        documents.push(document);
      }
      Object.assign(document.members, dimensions, values);
      const metrics: { Name: string; Unit: MetricUnit }[] = [];
      for (const name in values)
        metrics.push({ Name: name, Unit: UNITS[name as MetricName] ?? 'Count' });
      document.directives.push({
        Namespace: METRIC_NAMESPACE,
        Dimensions: [Object.keys(dimensions)],
        Metrics: metrics,
      });
    }
    const timestamp = Date.now();
    return documents.map(({ members, directives }) => ({
      _aws: { Timestamp: timestamp, CloudWatchMetrics: directives },
      ...members,
    }));
  }
}

/** A group joins a document when its dimensions agree with it and its metrics are new to it. */
function fits(
  members: Readonly<Record<string, unknown>>,
  dimensions: Dimensions,
  values: Readonly<Record<string, number>>,
): boolean {
  for (const name in dimensions) {
    if (name in members && members[name] !== dimensions[name]) return false;
  }
  for (const name in values) if (name in members) return false;
  return true;
}

/** The same dimensions, in any order. */
function sameDimensions(a: Dimensions, b: Dimensions): boolean {
  let names = 0;
  for (const name in a) {
    if (a[name] !== b[name]) return false;
    names++;
  }
  for (const _ in b) names--;
  return names === 0;
}
