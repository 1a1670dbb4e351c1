import { describe, expect, it } from 'vitest';
import {
  countMetric,
  flushMetrics,
  METRIC_NAMESPACE,
  takeMetrics,
} from '../../../../lib/core/metrics.js';

describe('metrics in CloudWatch embedded metric format', () => {
  it('sums each metric per set of dimensions, in as few documents as the values allow, then starts afresh', () => {
    countMetric('UpstreamCalls', { Service: 'scan-jobs', Outcome: 'success' });
    countMetric('UpstreamCalls', { Outcome: 'success', Service: 'scan-jobs' });
    countMetric('UpstreamRetries', { Service: 'scan-jobs' }, 3);
    countMetric('UpstreamCalls', { Service: 'scan-jobs', Outcome: 'timeout' });
    const lines: string[] = [];
    flushMetrics('listJobs', (line) => lines.push(line));
    const documents = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    // The retries share the successes' document (their dimensions agree); the timeouts cannot
    // (Outcome would need two values, UpstreamCalls two sums).
    expect(documents).toHaveLength(2);
    const [shared, timeouts] = documents;
    expect(shared).toEqual({
      _aws: {
        Timestamp: expect.any(Number),
        CloudWatchMetrics: [
          {
            Namespace: METRIC_NAMESPACE,
            Dimensions: [['Function', 'Service', 'Outcome']],
            Metrics: [{ Name: 'UpstreamCalls', Unit: 'Count' }],
          },
          {
            Namespace: METRIC_NAMESPACE,
            Dimensions: [['Function', 'Service']],
            Metrics: [{ Name: 'UpstreamRetries', Unit: 'Count' }],
          },
        ],
      },
      Function: 'listJobs',
      Service: 'scan-jobs',
      Outcome: 'success',
      UpstreamCalls: 2,
      UpstreamRetries: 3,
    });
    expect(timeouts).toMatchObject({ Outcome: 'timeout', UpstreamCalls: 1 });
    expect(timeouts).not.toHaveProperty('UpstreamRetries');
    expect(takeMetrics('listJobs')).toEqual([]);
  });

  it('gives every metric the values its own dimensions declare', () => {
    // Whatever the packing, each directive's dimensions and metrics read back the counted sums.
    countMetric('UpstreamCalls', { Service: 'nmt', Outcome: 'success' });
    countMetric('UpstreamCalls', { Service: 'tts', Outcome: 'success' });
    countMetric('UpstreamTimeouts', { Service: 'tts' });
    countMetric('WebhookDuplicates', {});
    const sums = new Map<string, number>();
    for (const document of takeMetrics('fn')) {
      const aws = document._aws as {
        CloudWatchMetrics: { Dimensions: string[][]; Metrics: { Name: string }[] }[];
      };
      for (const directive of aws.CloudWatchMetrics) {
        const where = directive.Dimensions[0]!.map((name) => `${name}=${String(document[name])}`);
        for (const { Name } of directive.Metrics)
          sums.set(`${Name} ${where.join(',')}`, document[Name] as number);
      }
    }
    expect(Object.fromEntries(sums)).toEqual({
      'UpstreamCalls Function=fn,Service=nmt,Outcome=success': 1,
      'UpstreamCalls Function=fn,Service=tts,Outcome=success': 1,
      'UpstreamTimeouts Function=fn,Service=tts': 1,
      'WebhookDuplicates Function=fn': 1,
    });
  });
});
