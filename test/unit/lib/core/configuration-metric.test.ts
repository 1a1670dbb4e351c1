/**
 * The metric of a configuration only an operator can mend (lib/core/configuration-metric.ts):
 * an embedded metric format document that the log line naming the cause carries, read here as
 * CloudWatch reads it, and held to the alarm the stack puts on it (sls/plugins/alarms.ts).
 */
import { describe, expect, it } from 'vitest';
import {
  type ConfigurationCause,
  configurationErrorMetric,
} from '../../../../lib/core/configuration-metric.ts';
import { createLogger } from '../../../../lib/core/log.ts';
import FunctionAlarms from '../../../../sls/plugins/alarms.ts';
import type { Resources } from '../../../../sls/serverless.ts';
import { serverlessOf } from '../../../helpers/serverless.ts';

interface ExtractedMetric {
  readonly namespace: string;
  readonly name: string;
  readonly dimensions: Record<string, string>;
  readonly value: number;
  readonly timestamp: number;
}

/**
 * The metrics CloudWatch extracts from one log line in the embedded metric format: for each
 * directive of `_aws.CloudWatchMetrics`, each metric of it, under each of its dimension sets,
 * with the dimensions' and the metric's values read from the line's root members. A member
 * missing or of the wrong type makes the line no metric (CloudWatch drops it).
 */
function extractedMetrics(line: string): ExtractedMetric[] {
  const root = JSON.parse(line) as Record<string, unknown>;
  const aws = root._aws as
    | {
        Timestamp: unknown;
        CloudWatchMetrics: {
          Namespace: string;
          Dimensions: string[][];
          Metrics: { Name: string; Unit?: string }[];
        }[];
      }
    | undefined;
  if (!aws || typeof aws.Timestamp !== 'number') return [];
  const timestamp = aws.Timestamp;
  return aws.CloudWatchMetrics.flatMap((directive) =>
    directive.Metrics.flatMap((metric) =>
      directive.Dimensions.map((set) => {
        const value = root[metric.Name];
        const dimensions = Object.fromEntries(set.map((name) => [name, root[name]]));
        if (typeof value !== 'number') throw new Error(`${metric.Name} is not a number`);
        for (const [name, given] of Object.entries(dimensions)) {
          if (typeof given !== 'string') throw new Error(`dimension ${name} is not a string`);
        }
        return {
          namespace: directive.Namespace,
          name: metric.Name,
          dimensions: dimensions as Record<string, string>,
          value,
          timestamp,
        };
      }),
    ),
  );
}

/** The alarm the stack puts on the metric, as alarms.ts adds it to a template. */
function configurationAlarm(): Record<string, unknown> {
  const resources: Resources = {};
  new FunctionAlarms(serverlessOf({ resources, custom: { alarmActions: [] } })).addFunctionAlarms();
  const alarm = resources.ConfigurationErrorsAlarm;
  if (!alarm?.Properties) throw new Error('no ConfigurationErrorsAlarm');
  return alarm.Properties;
}

const NOW = Date.UTC(2026, 10, 25, 10, 0, 0);

describe('the ConfigurationErrors metric', () => {
  it.each(['secret', 'credentials', 'environment'] as ConfigurationCause[])(
    'counts one %s fault, at the time it was met, under its cause',
    (cause) => {
      const line = JSON.stringify(configurationErrorMetric(cause, NOW));
      expect(extractedMetrics(line)).toEqual([
        {
          namespace: 'PlatformGateway',
          name: 'ConfigurationErrors',
          dimensions: { Cause: cause },
          value: 1,
          timestamp: NOW,
        },
      ]);
    },
  );

  it('rides on the log line that names the cause: one line, both read from it', () => {
    const lines: string[] = [];
    const log = createLogger({ function: 'listJobs' }, (line) => lines.push(line));
    log.error(
      'the secret cannot be used',
      { errorName: 'SecretError', errorMessage: 'signing.accessKey: Required' },
      configurationErrorMetric('secret', NOW),
    );
    expect(lines).toHaveLength(1);
    const line = lines[0] ?? '';
    expect(JSON.parse(line)).toMatchObject({
      level: 'error',
      message: 'the secret cannot be used',
      errorMessage: 'signing.accessKey: Required',
    });
    expect(extractedMetrics(line)).toHaveLength(1);
  });

  it.each(['secret', 'credentials'] as ConfigurationCause[])(
    "is what the stack's alarm watches: its namespace, its name, %s as a cause",
    (cause) => {
      const alarm = configurationAlarm() as {
        Metrics: {
          Id: string;
          Expression?: string;
          MetricStat?: { Metric: Record<string, unknown>; Stat: string };
        }[];
        Threshold: number;
        ComparisonOperator: string;
      };
      const [metric] = extractedMetrics(JSON.stringify(configurationErrorMetric(cause, NOW)));
      const watched = alarm.Metrics.find(
        ({ MetricStat }) =>
          JSON.stringify(MetricStat?.Metric) ===
          JSON.stringify({
            Namespace: metric?.namespace,
            MetricName: metric?.name,
            Dimensions: Object.entries(metric?.dimensions ?? {}).map(([Name, Value]) => ({
              Name,
              Value,
            })),
          }),
      );
      expect(watched, JSON.stringify(alarm.Metrics)).toBeDefined();
      expect(watched?.MetricStat?.Stat).toBe('Sum');
      // The alarm's expression adds every cause: any one fault in its period raises it.
      const expression = alarm.Metrics.find((query) => query.Expression)?.Expression ?? '';
      expect(expression).toContain(`FILL(${watched?.Id}, 0)`);
      expect([alarm.Threshold, alarm.ComparisonOperator]).toEqual([0, 'GreaterThanThreshold']);
    },
  );

  it('is stamped with the clock of the moment it is raised when given none', () => {
    const before = Date.now();
    const [metric] = extractedMetrics(JSON.stringify(configurationErrorMetric('secret')));
    expect(metric?.timestamp).toBeGreaterThanOrEqual(before);
    expect(metric?.timestamp).toBeLessThanOrEqual(Date.now());
  });
});
