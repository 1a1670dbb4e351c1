/**
 * Metrics in CloudWatch's embedded metric format (EMF): JSON log lines with an `_aws` member,
 * which CloudWatch Logs turns into metrics, with no API call and no client. Counts are kept in
 * memory during an invocation and written as one line per set of dimensions when it ends
 * (`flushMetrics`), so a call costs an array push.
 *
 * Powertools' Metrics does the same; it was weighed and left out: its bundle is 16 KB and it
 * adds about 7 ms to a cold start, for the handful of counters below.
 */

export const METRIC_NAMESPACE = 'PlatformGateway';

/** Every metric the service writes. */
type MetricName =
  /** An upstream call ended; dimensions Service and Outcome. */
  | 'UpstreamCalls'
  /** Attempts beyond the first; dimension Service. */
  | 'UpstreamRetries'
  /** A call ended at its deadline; dimension Service. */
  | 'UpstreamTimeouts'
  /** A webhook delivery that had run already, not run again; dimension Function. */
  | 'WebhookDuplicates'
  /** A queued invocation failed on its last receive: SQS moves it to the dead-letter queue. */
  | 'InvocationsToDeadLetterQueue';

type Dimensions = Readonly<Record<string, string>>;

interface Count {
  readonly name: MetricName;
  readonly dimensions: Dimensions;
  value: number;
}

const pending: Count[] = [];

/** Adds to a counter of the current invocation. */
export function countMetric(name: MetricName, dimensions: Dimensions, value = 1): void {
  pending.push({ name, dimensions, value });
}

/**
 * Writes what the invocation counted, one EMF line per set of dimensions, and starts afresh.
 * `function` is added as a dimension to every metric.
 */
export function flushMetrics(functionName: string, write: (line: string) => void): void {
  if (pending.length === 0) return;
  // Runs on every invocation: plain objects and a string key, no JSON to group by.
  const groups = new Map<string, { dimensions: Dimensions; values: Record<string, number> }>();
  for (const count of pending) {
    const key = dimensionKey(count.dimensions);
    let group = groups.get(key);
    if (!group) {
      group = { dimensions: { Function: functionName, ...count.dimensions }, values: {} };
      groups.set(key, group);
    }
    group.values[count.name] = (group.values[count.name] ?? 0) + count.value;
  }
  pending.length = 0;
  const timestamp = Date.now();
  for (const { dimensions, values } of groups.values()) {
    write(
      JSON.stringify({
        _aws: {
          Timestamp: timestamp,
          CloudWatchMetrics: [
            {
              Namespace: METRIC_NAMESPACE,
              Dimensions: [Object.keys(dimensions)],
              Metrics: Object.keys(values).map((name) => ({ Name: name, Unit: 'Count' })),
            },
          ],
        },
        ...dimensions,
        ...values,
      }),
    );
  }
}

/** The same dimensions, in any order, give the same key. */
function dimensionKey(dimensions: Dimensions): string {
  let key = '';
  for (const name of Object.keys(dimensions).sort())
    key += `${name}\u0000${dimensions[name]}\u0001`;
  return key;
}
